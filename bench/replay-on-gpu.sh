#!/usr/bin/env bash
# Checks the runtime and the replay on a GPU and tabulates what it measured
# for docs/replay-results.md.
#
#   bench/replay-on-gpu.sh prepare   here, where the analyzer builds: builds
#                                    what is carried (the runtime, the whole
#                                    programs), runs its CPU checks, and
#                                    writes bench/.carry/ (the SARIF of
#                                    test-inputs, at most three findings per
#                                    rule; that of bench/gpu-programs, the
#                                    findings replayed with the exported
#                                    model apart; the nlohmann/json header;
#                                    GoogleTest's sources)
#   bench/replay-on-gpu.sh run       on the GPU machine (no apt, no LLVM, no
#                                    network): builds GoogleTest and runtime/
#                                    against its CUDA libtorch, runs the
#                                    runtime's tests and the doctor, replays
#                                    the findings, exports a small ResNet-like
#                                    TorchScript model, and times each whole
#                                    program of bench/gpu-programs beside the
#                                    replay of its finding; results go to
#                                    $OUT (default bench/.carry/out)
#
# Carry bench/.carry to the GPU machine with the working tree. Each step of
# `run` has its own time limit and the later steps run when an earlier one
# fails, so that one short machine lease says as much as it can; all of
# `run` stops within DEVICE_SECONDS (default 470: under 8 minutes, so that a
# 15-minute lease can run it twice).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/bench/.carry

prepare() {
  local build=${TORCHLINT_BUILD_DIR:-$root/build}
  "$root/scripts/build.sh" torchlint
  cmake -S "$root/test-inputs" -B "$build/test-inputs" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake -S "$root/bench/gpu-programs" -B "$build/gpu-programs" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  rm -rf "$carry"
  # The whole folder: Debian's json.hpp includes its detail/ headers, and a
  # machine may hold another version of them in /usr/include.
  mkdir -p "$carry/include"
  cp -r /usr/include/nlohmann "$carry/include/"
  cp -r /usr/src/googletest "$carry/googletest"
  # Exit 1 only says that there are findings.
  "$build/bin/torchlint" "$build/test-inputs" --format=sarif \
    -o "$carry/test-inputs-all.sarif" || [[ $? -eq 1 ]]
  python3 "$root/bench/replay_sample.py" "$carry/test-inputs-all.sarif" \
    "$carry/test-inputs.sarif" 3
  rm "$carry/test-inputs-all.sarif"
  "$build/bin/torchlint" "$build/gpu-programs" --format=sarif \
    -o "$carry/gpu-programs-all.sarif" || [[ $? -eq 1 ]]
  # The pairs that run a TorchScript model are replayed with that model
  # (--model), the others without.
  python3 - "$root/bench/gpu-programs/manifest.json" "$carry" <<'PY'
import json, sys
pairs = json.load(open(sys.argv[1]))
for name, keep in (("manifest-plain", False), ("manifest-model", True)):
    json.dump([p for p in pairs if bool(p.get("model")) == keep],
              open(f"{sys.argv[2]}/{name}.json", "w"))
PY
  python3 "$root/bench/replay_sample.py" "$carry/gpu-programs-all.sarif" \
    "$carry/gpu-programs.sarif" --listed "$carry/manifest-plain.json"
  python3 "$root/bench/replay_sample.py" "$carry/gpu-programs-all.sarif" \
    "$carry/gpu-programs-model.sarif" --listed "$carry/manifest-model.json"
  rm "$carry/gpu-programs-all.sarif" "$carry"/manifest-*.json

  # What is carried must build and run here first: the runtime (its tests
  # run under ctest), the whole programs, a few of their steps on the CPU,
  # the replay of their findings on the CPU, and the scripts.
  "$root/scripts/build.sh" torchlint-replay torchlint-doctor torchlint_replay_tests
  cmake --build "$build/gpu-programs" --parallel "$(nproc)"
  python3 -m py_compile "$root/bench/export_model.py" "$root/bench/gpu_programs.py" \
    "$root/bench/replay-table.py"
  local check
  check=$(mktemp -d)
  python3 "$root/bench/gpu_programs.py" "$build/gpu-programs" "$check/programs.json" \
    --rounds 1 --steps 1 --warmup 0 --timeout 120 > "$check/programs.log"
  # One step each: a program still busy after the limit (the largest are
  # slow on a CPU) is said, not failed; one that fails is.
  python3 - "$check/programs.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
slow = [r["id"] for r in rows if "past " in str(r.get("error", ""))]
broken = [(r["id"], r["error"]) for r in rows
          if "error" in r and r["id"] not in slow]
broken += [(r["id"], "the twin fails") for r in rows
           if r["expect"] == "crash-confirmed" and r.get("fixed_exit") != 0]
if broken:
    sys.exit("prepare: these programs fail on the CPU: %s" % broken)
print("prepare: %d pairs ran a step on the CPU%s" % (
    len(rows) - len(slow), "; still running after the limit: %s" % slow if slow else ""))
PY
  # The scenarios that hold on any device, for at most three minutes each:
  # the large ones are slow on a CPU, which is said, not failed.
  for log in gpu-programs gpu-programs-model; do
    local status=0
    timeout 180 "$build/bin/torchlint-replay" "$carry/$log.sarif" --device cpu \
      --budget-seconds 1 --repeats 3 > "$check/$log.txt" 2>&1 || status=$?
    case $status in
      0) echo "prepare: $log.sarif replayed on the CPU: $(grep -c 'confirmed\|no-gain\|slower\|not-run' "$check/$log.txt") rows" ;;
      124) echo "prepare: $log.sarif: the CPU replay was still running after 180 s" ;;
      *) cat "$check/$log.txt" >&2; echo "prepare: $log.sarif: the replay failed ($status)" >&2; exit 1 ;;
    esac
  done
  rm -rf "$check"
  echo "prepared $carry"
}

# Runs a step under a time limit, its output into $out/NAME.log; a failure is
# said and the script goes on.
step() {
  local name=$1 limit=$2
  shift 2
  local begin=$SECONDS left=$((deadline - SECONDS))
  if ((left < 10)); then
    echo "step $name: SKIPPED, the run's $deadline s are spent"
    return
  fi
  ((limit > left)) && limit=$left
  if timeout "$limit" "$@" >"$out/$name.log" 2>&1; then
    echo "step $name: ok ($((SECONDS - begin)) s)"
  else
    echo "step $name: FAILED with $? after $((SECONDS - begin)) s; its end:"
    tail -15 "$out/$name.log"
  fi
}

run() {
  out=${OUT:-$carry/out}
  deadline=${DEVICE_SECONDS:-470}
  local build=${REPLAY_BUILD_DIR:-$root/build-replay}
  local gtest=$build/googletest-install programs=$build/gpu-programs
  local prefix=${TORCH_PREFIX:-} jobs
  jobs=$(nproc)
  if [[ -z "$prefix" ]]; then
    prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' \
             2>/dev/null || true)
  fi
  # libtorch's CMake package looks for the CUDA toolkit its build used.
  local cuda=()
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
    cuda=(-DCUDAToolkit_ROOT=/usr/local/cuda)
  fi
  mkdir -p "$out"
  {
    uname -a
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
      --format=csv 2>&1 || true
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 || true
  } >"$out/machine.txt"
  cat "$out/machine.txt"
  step googletest 150 bash -c "
    cmake -S '$carry/googletest' -B '$build/googletest' -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX='$gtest' &&
    cmake --build '$build/googletest' --parallel $jobs --target install"
  # The carried header, so that the same path is taken here and there.
  step configure 150 cmake -S "$root/runtime" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DTORCHLINT_BUILD_TESTS=ON \
    -DCMAKE_PREFIX_PATH="$prefix;$gtest" "${cuda[@]}" \
    -DTORCHLINT_JSON_INCLUDE_DIR="$carry/include"
  grep "torchlint runtime:" "$out/configure.log" || true
  # The whole programs build beside the runtime: both are compile-bound.
  cmake -S "$root/bench/gpu-programs" -B "$programs" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${cuda[@]}" \
    >"$out/programs-build.log" 2>&1 &&
    cmake --build "$programs" --parallel "$jobs" >>"$out/programs-build.log" 2>&1 &
  local programs_build=$!
  step build 300 cmake --build "$build" --parallel "$jobs"
  if wait "$programs_build"; then echo "step programs-build: ok"
  else echo "step programs-build: FAILED"; tail -15 "$out/programs-build.log"; fi
  step doctor 60 "$build/bin/torchlint-doctor"
  head -40 "$out/doctor.log" || true
  step tests 150 ctest --test-dir "$build" --output-on-failure
  tail -5 "$out/tests.log" || true
  step replay 240 "$build/bin/torchlint-replay" "$carry/test-inputs.sarif" \
    -o "$out/replayed.sarif" --budget-seconds "${REPLAY_BUDGET:-2}" \
    --repeats "${REPLAY_REPEATS:-20}"
  step programs-replay 100 "$build/bin/torchlint-replay" \
    "$carry/gpu-programs.sarif" -o "$out/programs-replayed.sarif" \
    --budget-seconds 5
  # A model as users deploy one: scripted in Python, saved, loaded in C++.
  step export-model 60 python3 "$root/bench/export_model.py" "$out/model.pt"
  local model=()
  [[ -s "$out/model.pt" ]] && model=(--model "$out/model.pt")
  step model-replay 60 "$build/bin/torchlint-replay" \
    "$carry/gpu-programs-model.sarif" -o "$out/model-replayed.sarif" \
    --budget-seconds 5 "${model[@]}" --input-shape 1,3,224,224
  step programs 240 python3 "$root/bench/gpu_programs.py" "$programs" \
    "$out/programs.json" --rounds "${PROGRAM_ROUNDS:-3}" "${model[@]}"
  cat "$out/programs.log" || true
  python3 "$root/bench/replay-table.py" "$out/replayed.sarif" \
    --programs "$out/programs.json" "$out/programs-replayed.sarif" \
    "$out/model-replayed.sarif" \
    >"$out/replay-results.md" 2>"$out/table.log" || cat "$out/table.log"
  cat "$out/replay-results.md"
  echo "run took $SECONDS s of its $deadline"
  echo "results in $out"
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
*) sed -n '2,29p' "$0" >&2; exit 2 ;;
esac
