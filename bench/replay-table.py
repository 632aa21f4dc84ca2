#!/usr/bin/env python3
"""Tabulates the verdicts of a SARIF log that torchlint-replay annotated, as
Markdown: one row per replayed result, then the count of each verdict."""
import collections
import json
import sys


def main(path):
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
            rows.append((place, result.get("ruleId", ""), ran_on,
                         replay["verdict"], detail.replace("|", "\\|")))
    if env:
        print("libtorch %s; CUDA %s\n" % (env.get("libtorch"), env.get("cuda")))
    print("| finding | rule | ran on | verdict | speed-up [95% CI] / reason |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %s |" % row)
    print()
    for verdict, count in sorted(collections.Counter(r[3] for r in rows).items()):
        print("- %s: %d" % (verdict, count))


if __name__ == "__main__":
    main(sys.argv[1])
