#!/usr/bin/env python3
"""Keeps at most N results per rule of a torchlint SARIF log, among those that
carry a replay recipe, so that a GPU run with little machine time replays every
rule: the most varied recipes of each rule first (a recipe unlike the ones
already kept), then the rest in the log's order.

    replay_sample.py IN.sarif OUT.sarif [N]   (N defaults to 3)
    replay_sample.py IN.sarif OUT.sarif --listed MANIFEST.json
                     only the findings a manifest of bench/gpu-programs
                     names (rule, program and line)
"""
import json
import os
import sys


def recipe_of(result):
    return result.get("properties", {}).get("replayRecipe")


def sample(results, per_rule):
    by_rule = {}
    for result in results:
        if recipe_of(result) is not None:
            by_rule.setdefault(result.get("ruleId", ""), []).append(result)
    kept = set()
    for candidates in by_rule.values():
        seen, first, rest = set(), [], []
        for result in candidates:
            key = json.dumps(recipe_of(result), sort_keys=True)
            (rest if key in seen else first).append(result)
            seen.add(key)
        kept.update(id(r) for r in (first + rest)[:per_rule])
    # The log's own order, so that the table reads like the analyzer's.
    return [r for r in results if id(r) in kept]


def place_of(result):
    """The file and line of a result's first location (None when unsaid)."""
    where = result["locations"][0]["physicalLocation"]
    return (where["artifactLocation"]["uri"],
            where.get("region", {}).get("startLine"))


def is_listed(pair, result):
    """Whether result is the finding a manifest pair of bench/gpu-programs
    names: its rule, in its original program, on its line."""
    uri, line = place_of(result)
    return (result.get("ruleId") == pair["rule"] and
            os.path.basename(uri) == pair["original"] + ".cpp" and
            line == pair["line"])


def listed(results, manifest):
    return [r for r in results if any(is_listed(p, r) for p in manifest)]


def main(argv):
    if len(argv) == 5 and argv[3] == "--listed":
        with open(argv[4], encoding="utf-8") as f:
            manifest = json.load(f)
        choose = lambda results: listed(results, manifest)
        how = "those the manifest lists"
    elif len(argv) in (3, 4):
        per_rule = int(argv[3]) if len(argv) == 4 else 3
        choose = lambda results: sample(results, per_rule)
        how = "at most %d per rule" % per_rule
    else:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        log = json.load(f)
    total = kept = 0
    for run in log.get("runs", []):
        results = run.get("results", [])
        run["results"] = choose(results)
        total += len(results)
        kept += len(run["results"])
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(log, f, indent=1)
    print("replay_sample: kept %d of %d results (%s)" % (kept, total, how))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
