#!/usr/bin/env python3
"""Scores the SARIF logs of bench/realworld.sh against the labels, per rule.

    realworld_score.py LABELS OUT

A label is matched, as the corpus's own scorer matches it, by a finding of its
rule within one line in the same file (any AMP rule for pattern d). Prints each
miss and each trap hit, then a Markdown table: per rule, true issues found,
traps flagged; and the totals. A label in a unit torchlint could not analyze
is a miss.
"""
import json
import os
import sys
from collections import defaultdict

labels_path, out = sys.argv[1:3]
rows = [line.split("\t") for line in open(labels_path).read().splitlines()[1:]]
found = defaultdict(list)  # (repo, uri) -> [(rule, line)]
for name in sorted(os.listdir(out)):
    if not name.endswith(".sarif"):
        continue
    try:
        runs = json.load(open(os.path.join(out, name)))["runs"]
    except (OSError, ValueError):
        continue
    for run in runs:
        for result in run.get("results", []):
            where = result["locations"][0]["physicalLocation"]
            found[(name[:-6], where["artifactLocation"]["uri"])].append(
                (result["ruleId"], where["region"]["startLine"]))

AMP = ("torch-autocast", "torch-backward-under-autocast", "torch-fp16",
       "torch-half-model", "torch-missing-mixed")


def matches(rule, label_rule, pattern):
    return rule.startswith(AMP) if pattern == "d" else rule == label_rule


per_rule = defaultdict(lambda: [0, 0, 0, 0])  # found, issues, flagged, traps
for repo, commit, path, line, pattern, rule, yes, *_ in rows:
    hits = [r for (r_repo, uri), results in found.items()
            if r_repo == repo and uri.endswith(path)
            for r, at in results
            if matches(r, rule, pattern) and abs(at - int(line)) <= 1]
    key = "AMP (any rule)" if pattern == "d" else rule
    counts = per_rule[key]
    if yes == "yes":
        counts[1] += 1
        counts[0] += bool(hits)
        if not hits:
            print(f"missed   {repo} {path}:{line} {rule}")
    else:
        counts[3] += 1
        counts[2] += bool(hits)
        if hits:
            print(f"trap hit {repo} {path}:{line} {rule}")

print()
print("| rule | true issues found | traps flagged |")
print("| --- | --- | --- |")
total = [0, 0, 0, 0]
for rule in sorted(per_rule):
    f, n, t, m = per_rule[rule]
    total = [a + b for a, b in zip(total, per_rule[rule])]
    print(f"| {rule} | {f}/{n} | {t}/{m} |")
f, n, t, m = total
print(f"| **all** | **{f}/{n} = {f / max(1, n):.2f}** | "
      f"**{t}/{m} = {t / max(1, m):.2f}** |")
