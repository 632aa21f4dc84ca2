#!/usr/bin/env python3
"""Tabulates the verdicts of a SARIF log that torchlint-replay annotated, as
Markdown: one row per replayed result, then the count of each verdict."""
import collections
import json
import os
import re
import sys

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


def main(path):
    current = current_scenario_ids()
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    rows, env = [], None
    for run in log.get("runs", []):
        for result in run.get("results", []):
            replay = result.get("properties", {}).get("replay")
            if not replay:
                continue
            env = env or replay.get("environment")
            where = result["locations"][0]["physicalLocation"]
            place = "%s:%s" % (where["artifactLocation"]["uri"],
                               where.get("region", {}).get("startLine", "?"))
            speed = replay.get("speedUp")
            detail = ("%.2fx [%.2f, %.2f]" % (speed["ratio"], speed["low"],
                                              speed["high"])
                      if speed else replay.get("reason", ""))
            ran_on = replay.get("environment", {}).get("deviceName", "")
            if replay["verdict"] == "not-run":
                ran_on = "-"
            scenario = replay.get("scenario", "")
            rows.append((place, result.get("ruleId", ""),
                         current.get(scenario, scenario), ran_on,
                         replay["verdict"], detail.replace("|", "\\|")))
    if env:
        print("libtorch %s; CUDA %s\n" % (env.get("libtorch"), env.get("cuda")))
    print("| finding | rule | scenario | ran on | verdict "
          "| speed-up [95% CI] / reason |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %s | %s |" % row)
    print()
    for verdict, count in sorted(collections.Counter(r[4] for r in rows).items()):
        print("- %s: %d" % (verdict, count))


if __name__ == "__main__":
    main(sys.argv[1])
