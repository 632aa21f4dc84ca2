#!/usr/bin/env python3
"""Runs the whole-program pairs of bench/gpu-programs (each rule's pattern and
its fixed twin, built in BUILD) and writes what they measured as JSON.

    gpu_programs.py BUILD OUT.json [--rounds R] [--steps N] [--model FILE]

Timed pairs run in turns (original, fixed, original, ...) for R rounds so that
a drifting clock or a warming card weighs on both alike; the ratio is the
median of the original's seconds over the median of the fixed twin's. A pair
whose manifest expects `crash-confirmed` passes when the original exits with
an error and the twin exits cleanly. A pair that expects `understated` prints
the time its own clock measured: its ratio is the fixed twin's (the true
time) over the original's (what the program reported), as the replay of
unsynchronized-timing reports it. Programs marked `model` run the
TorchScript file --model names (TORCHLINT_MODEL), else their own.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "gpu-programs", "manifest.json")


def run(build, name, arguments, timeout, model=None):
    """One run of a program: its exit code and the JSON line it printed."""
    env = dict(os.environ)
    if model:
        env["TORCHLINT_MODEL"] = model
    try:
        done = subprocess.run([os.path.join(build, name)] + arguments,
                              capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"exit": None, "error": "past %d s" % timeout}
    said = {"exit": done.returncode}
    lines = done.stdout.strip().splitlines()
    try:
        said.update(json.loads(lines[-1]))
    except (IndexError, ValueError):
        said["error"] = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return said


def measure(build, pair, rounds, arguments, timeout, model=None):
    row = dict(pair)
    model = model if pair.get("model") else None
    if model:
        row["model_file"] = model
    if pair["expect"] == "crash-confirmed":
        original = run(build, pair["original"], arguments, timeout)
        fixed = run(build, pair["fixed"], arguments, timeout)
        row["original_exit"], row["fixed_exit"] = original["exit"], fixed["exit"]
        row["original_error"] = original.get("error")
        row["verdict"] = ("crash-confirmed"
                          if original["exit"] not in (0, None) and
                          fixed["exit"] == 0 else "not-confirmed")
        return row
    seconds = {"original": [], "fixed": []}
    for _ in range(rounds):
        for side in ("original", "fixed"):
            said = run(build, pair[side], arguments, timeout, model)
            if said.get("exit") != 0 or "seconds" not in said:
                row["error"] = "%s: %s" % (pair[side],
                                           said.get("error", said))
                return row
            seconds[side].append(said["seconds"])
            row["device"] = said.get("device")
    row["seconds"] = seconds
    original, fixed = (statistics.median(seconds["original"]),
                       statistics.median(seconds["fixed"]))
    row["ratio"] = fixed / original if pair["expect"] == "understated" \
        else original / fixed
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=0,
                        help="steps per run (default: each program's own)")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--warmup", type=int,
                        help="warm-up steps of each run (with --steps)")
    parser.add_argument("--model", help="the TorchScript file of the pairs "
                        "marked 'model' (default: the program's own)")
    parser.add_argument("--only", action="append",
                        help="the pair with this id (repeatable)")
    args = parser.parse_args()
    # The programs take their steps, then their warm-up steps.
    arguments = []
    if args.steps:
        arguments = [str(args.steps)] + (
            [str(args.warmup)] if args.warmup is not None else [])
    with open(MANIFEST, encoding="utf-8") as f:
        pairs = [p for p in json.load(f) if not args.only or p["id"] in args.only]
    rows = []
    for pair in pairs:
        row = measure(args.build, pair, args.rounds, arguments, args.timeout,
                      args.model)
        rows.append(row)
        shown = row.get("verdict") or row.get("error") or "%.2fx" % row["ratio"]
        print("%-28s %s" % (pair["id"], shown), flush=True)
        # After each pair, so that a run cut short keeps what it measured.
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
