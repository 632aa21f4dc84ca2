#!/usr/bin/env python3
"""Tabulates the verdicts of a SARIF log that torchlint-replay annotated, as
Markdown: one row per replayed result, then the count of each verdict.

    replay-table.py REPLAYED.sarif [--programs PROGRAMS.json PROGRAMS.sarif...]

With --programs, a second table puts the replay's speed-up for each whole
program of bench/gpu-programs (PROGRAMS.sarif, replayed; several logs where
some findings were replayed with --model) beside the speed-up the program
itself showed (PROGRAMS.json, from bench/gpu_programs.py), and whether the two
agree within 10%."""
import argparse
import collections
import json
import os
import re
import sys

from replay_sample import is_listed, place_of

SCENARIOS_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                             "common", "Scenarios.def")


def current_scenario_ids():
    """Old and current scenario ids to the current one, from the list the
    analyzer and the runtime share, so that a log replayed before the ids
    were renamed is tabulated under the names of today's."""
    with open(SCENARIOS_DEF, encoding="utf-8") as f:
        entries = re.findall(
            r'^TORCHLINT_SCENARIO\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*"[^"]*"\s*,'
            r'\s*"([^"]*)"\s*\)', f.read(), re.MULTILINE)
    current = {}
    for new, old in entries:
        current[new] = new
        if old:
            current[old] = new
    return current


def replayed_results(log):
    for run in log.get("runs", []):
        for result in run.get("results", []):
            replay = result.get("properties", {}).get("replay")
            if replay:
                yield result, replay


def speed_text(replay):
    speed = replay.get("speedUp")
    if not speed:
        return ""
    return "%.2fx [%.2f, %.2f]" % (speed["ratio"], speed["low"], speed["high"])


def programs_table(programs_path, *replayed_paths):
    """The replay's ratio beside the whole program's, per pair."""
    with open(programs_path, encoding="utf-8") as f:
        programs = json.load(f)
    replayed = []
    for path in replayed_paths:
        try:
            with open(path, encoding="utf-8") as f:
                replayed += list(replayed_results(json.load(f)))
        except (OSError, ValueError) as error:
            print("(%s: %s)" % (path, error), file=sys.stderr)
    print("\n## Whole programs beside the replay\n")
    print("| rule | pair | replay verdict | replay speed-up [95% CI] "
          "| program speed-up | replay / program - 1 | within 10% |")
    print("|---|---|---|---|---|---|---|")
    within = []
    for row in programs:
        found = [replay for result, replay in replayed
                 if is_listed(row, result)]
        replay = found[0] if found else None
        verdict = replay["verdict"] if replay else "no finding replayed"
        replay_speed = (speed_text(replay) or replay.get("reason", "")
                        if replay else "")
        if row["expect"] == "crash-confirmed":
            program = "%s (original exit %s, fixed exit %s)" % (
                row.get("verdict"), row.get("original_exit"),
                row.get("fixed_exit"))
            gap = "-"
        elif "ratio" in row:
            program = "%.2fx" % row["ratio"]
            speed = replay and replay.get("speedUp")
            gap = ("%+.2f" % (speed["ratio"] / row["ratio"] - 1)
                   if speed else "-")
        else:
            program, gap = row.get("error", "not run"), "-"
        close = "-"
        if gap != "-":
            close = "yes" if abs(float(gap)) <= 0.10 else "no"
            within.append(close == "yes")
        elif row["expect"] == "crash-confirmed" and replay:
            close = "yes" if (row.get("verdict") == replay["verdict"]) else "no"
            within.append(close == "yes")
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            row["rule"], row.get("id", row["original"]), verdict,
            replay_speed.replace("|", "\\|"), program.replace("|", "\\|"),
            gap, close))
    print("\n%d of %d pairs agree (timed pairs within 10%%, crashes "
          "confirmed by both)" % (sum(within), len(within)))


def main(path):
    current = current_scenario_ids()
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    rows, env = [], None
    for result, replay in replayed_results(log):
        env = env or replay.get("environment")
        uri, line = place_of(result)
        place = "%s:%s" % (uri, "?" if line is None else line)
        detail = speed_text(replay) or replay.get("reason", "")
        ran_on = replay.get("environment", {}).get("deviceName", "")
        if replay["verdict"] == "not-run":
            ran_on = "-"
        scenario = replay.get("scenario", "")
        assumed = "; ".join(replay.get("assumptions", []))
        rows.append((place, result.get("ruleId", ""),
                     current.get(scenario, scenario), ran_on,
                     replay["verdict"], detail.replace("|", "\\|"),
                     assumed.replace("|", "\\|")))
    if env:
        print("libtorch %s; CUDA %s\n" % (env.get("libtorch"), env.get("cuda")))
    print("| finding | rule | scenario | ran on | verdict "
          "| speed-up [95% CI] / reason | assumptions |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %s | %s | %s |" % row)
    print()
    for verdict, count in sorted(collections.Counter(r[4] for r in rows).items()):
        print("- %s: %d" % (verdict, count))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replayed")
    parser.add_argument("--programs", nargs="+",
                        metavar="PROGRAMS.json PROGRAMS.sarif")
    args = parser.parse_args()
    main(args.replayed)
    if args.programs:
        programs_table(*args.programs)
