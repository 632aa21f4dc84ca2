#!/usr/bin/env python3
"""The mutation sweep: the analyzer on thousands of odd variants of its own
test-inputs, looking for crashes, hangs and findings outside the code it was
given. Not a test of findings: a robustness sweep, recorded in
docs/reliability.md; scripts/test.sh runs a short one.

    bench/mutation_sweep.py [--seconds N | --variants N] [--batch N]
                            [--seed S] [--keep] OUT

Each batch is a compilation database of variants (bench/mutate.py: one to
three mutations of a test-inputs program, with that program's flags) that
torchlint analyzes with every rule, the precompiled libtorch prefix and
--timeout. A unit it crashed on, one past the timeout, and a finding in a
file that is not the variant are kept under OUT/found/ with the mutations
that made it. OUT/runs.tsv has a line per batch. Exit status 1 when anything
was found.
"""
import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def programs(build):
    """The single-file test-inputs programs, each with its compile command."""
    inputs = os.path.join(ROOT, "test-inputs")
    with open(os.path.join(build, "test-inputs", "compile_commands.json")) as f:
        entries = json.load(f)
    found = []
    for entry in entries:
        path = os.path.join(entry["directory"], entry["file"])
        if os.path.dirname(os.path.realpath(path)) != os.path.realpath(inputs):
            continue
        args = entry.get("arguments") or shlex.split(entry["command"])
        found.append((path, args))
    return sorted(found)


def variant_command(args, original, variant):
    command = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if arg in ("-c", original):
            continue
        command.append(arg)
    # Quoted includes of the original's folder still resolve.
    return command + ["-I", os.path.dirname(original), "-fsyntax-only",
                      variant]


def alone_past_timeout(torchlint, cache, work, path, timeout):
    """Whether the unit passes --timeout again, analyzed on its own."""
    run = subprocess.run(
        [torchlint, "--checks=*", "--format=json", "--quiet", "-j1",
         "--cache-dir=" + cache, "--timeout=%d" % timeout,
         os.path.join(work, "compile_commands.json"), path],
        capture_output=True, text=True)
    return "longer than" in run.stdout + run.stderr


def run_batch(torchlint, cache, work, batch, rng, sources, timeout):
    os.makedirs(work, exist_ok=True)
    database, made = [], {}
    for k in range(batch):
        original, args = rng.choice(sources)
        seed = rng.randrange(1 << 62)
        count = rng.randint(1, 3)
        text, applied = mutate.mutate(
            open(original, encoding="utf-8").read(), random.Random(seed), count)
        stem = os.path.splitext(os.path.basename(original))[0]
        path = os.path.join(work, "%s.mutant%03d.cpp" % (stem, k))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        made[path] = {"original": os.path.relpath(original, ROOT),
                      "seed": seed, "count": count, "mutations": applied}
        database.append({"directory": work, "file": path,
                         "arguments": variant_command(args, original, path)})
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump(database, f, indent=1)
    report = os.path.join(work, "report.json")
    run = subprocess.run(
        [torchlint, "--checks=*", "--format=json", "-o", report, "--quiet",
         "-j1", "--cache-dir=" + cache, "--cache-size=512",
         "--timeout=%d" % timeout, os.path.join(work, "compile_commands.json")],
        capture_output=True, text=True)
    problems, slow = [], []
    try:
        with open(report) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        return made, [("no report", None, "exit %d: %s %s" %
                       (run.returncode, e, run.stderr[-2000:]))], 0, 0
    for failure in result["failures"]:
        message = failure["message"]
        if "crashed" in message:
            problems.append(("crash", failure["file"], message))
        elif "longer than" in message:
            # --timeout is wall time: on a loaded machine a unit may pass
            # it without hanging. It is a hang only if it passes it again
            # when analyzed alone.
            if alone_past_timeout(torchlint, cache, work, failure["file"],
                                  timeout):
                problems.append(("hang", failure["file"], message))
            else:
                slow.append(failure["file"])
    for finding in result["findings"]:
        if os.path.realpath(finding["file"]) not in map(os.path.realpath, made):
            problems.append(("finding outside the variant", None,
                             json.dumps(finding)[:400]))
    for path in slow:
        print("past the timeout under load, analyzed alone: %s" % path,
              flush=True)
    return made, problems, len(result["findings"]), len(result["failures"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seconds", type=int, default=0)
    parser.add_argument("--variants", type=int, default=0)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--keep", action="store_true",
                        help="keep every batch, not only those with a problem")
    parser.add_argument("--build", default=os.environ.get(
        "TORCHLINT_BUILD_DIR", os.path.join(ROOT, "build")))
    options = parser.parse_args()
    if not options.seconds and not options.variants:
        options.variants = options.batch
    torchlint = os.environ.get("TORCHLINT",
                               os.path.join(options.build, "bin", "torchlint"))
    seed = options.seed if options.seed is not None else random.randrange(1 << 31)
    rng = random.Random(seed)
    sources = programs(options.build)
    out = os.path.abspath(options.out)
    os.makedirs(os.path.join(out, "found"), exist_ok=True)
    log = os.path.join(out, "runs.tsv")
    if not os.path.exists(log):
        with open(log, "w") as f:
            f.write("started\tseed\tbatch\tvariants\tfindings\t"
                    "with compile errors\tproblems\tseconds\n")
    print("mutation sweep: seed %d, %d programs, torchlint %s" %
          (seed, len(sources), torchlint), flush=True)
    start, done, batch_number, problems_total = time.time(), 0, 0, 0
    while True:
        if options.variants and done >= options.variants:
            break
        if options.seconds and time.time() - start >= options.seconds:
            break
        size = options.batch
        if options.variants:
            size = min(size, options.variants - done)
        work = os.path.join(out, "batch-%d-%d" % (seed, batch_number))
        began = time.time()
        made, problems, findings, failures = run_batch(
            torchlint, os.path.join(out, "cache"), work, size, rng, sources,
            options.timeout)
        seconds = time.time() - began
        done += size
        problems_total += len(problems)
        with open(log, "a") as f:
            f.write("%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\n" % (
                time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(began)), seed,
                batch_number, size, findings, failures, len(problems), seconds))
        for kind, path, message in problems:
            print("%s: %s: %s" % (kind, path or work, message), flush=True)
            if path in made:
                keep = os.path.join(out, "found", os.path.basename(path))
                with open(path) as src, open(keep, "w") as dst:
                    dst.write(src.read())
                with open(keep + ".json", "w") as f:
                    json.dump(dict(made[path], kind=kind, message=message), f,
                              indent=1)
        if not problems and not options.keep:
            subprocess.run(["rm", "-rf", work])
        batch_number += 1
        print("batch %d: %d variants, %d findings, %d with compile errors, "
              "%d problems, %.0f s" % (batch_number, size, findings, failures,
                                       len(problems), seconds), flush=True)
    print("mutation sweep: %d variants in %.0f s, %d problems" %
          (done, time.time() - start, problems_total))
    return 1 if problems_total else 0


if __name__ == "__main__":
    sys.exit(main())
