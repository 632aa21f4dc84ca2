#!/usr/bin/env python3
"""Scores the SARIF logs of bench/realworld.sh against the label files.

    realworld_score.py OUT LABELS...

A label is matched, as the corpus's own scorer matches it, by a finding of its
rule within one line in the same file (any AMP rule for pattern d). A label in
a unit torchlint could not analyze is a miss. Each label file may have a list
of the files read beside it (labels-X.tsv: files-X.tsv; realworld-labels-X.tsv:
realworld-files-X.tsv): in a file marked `full` every line that looks like a
rule's pattern is labelled, so a finding there that matches no label is
counted as unlabelled (a likely false positive; torch-missing-mixed-precision,
an opportunity note, is left out of that count, as the corpus's scorer does).

Prints each miss, trap hit and unlabelled finding, then Markdown tables: per
label file, per repository, per rule, and the totals over every file.
"""
import json
import os
import sys
import urllib.parse
from collections import defaultdict

out, label_paths = sys.argv[1], sys.argv[2:]

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


def files_list(labels_path):
    folder, name = os.path.split(labels_path)
    path = os.path.join(folder, name.replace("labels-", "files-", 1))
    return path if path != labels_path and os.path.isfile(path) else None


def same_file(uri, path):
    """The finding's file is the labelled one: the whole path, not a suffix
    of a file name (`main.cpp` is not `inference_main.cpp`)."""
    uri = urllib.parse.unquote(uri)
    return uri == path or uri.endswith("/" + path)


def findings_in(repo, path):
    return [hit for (r_repo, uri), hits in found.items()
            if r_repo == repo and same_file(uri, path) for hit in hits]


class Counts:
    """found, issues, flagged, traps, unlabelled, full files"""

    def __init__(self):
        self.values = [0] * 6

    def add(self, other):
        self.values = [a + b for a, b in zip(self.values, other.values)]

    def row(self, name, with_files=True):
        f, n, t, m, u, full = self.values
        cells = [name, f"{f}/{n} = {f / max(1, n):.2f}",
                 f"{t}/{m} = {t / max(1, m):.2f}"]
        if with_files:
            cells.append(f"{u} in {full} files" if full else str(u))
        return "| " + " | ".join(cells) + " |"


def score(labels_path):
    rows = [line.split("\t")
            for line in open(labels_path).read().splitlines()[1:] if line]
    per_repo, per_rule = defaultdict(Counts), defaultdict(Counts)
    for repo, commit, path, line, pattern, rule, yes, *_ in rows:
        hits = [r for r, at in findings_in(repo, path)
                if matches(r, rule, pattern) and abs(at - int(line)) <= 1]
        key = "AMP (any rule)" if pattern == "d" or \
            rule.startswith(AMP) else rule
        for counts in (per_repo[repo], per_rule[key]):
            if yes == "yes":
                counts.values[1] += 1
                counts.values[0] += bool(hits)
            else:
                counts.values[3] += 1
                counts.values[2] += bool(hits)
        if yes == "yes" and not hits:
            print(f"missed     {repo} {path}:{line} {rule}")
        elif yes != "yes" and hits:
            print(f"trap hit   {repo} {path}:{line} {rule}")

    listed = files_list(labels_path)
    if listed:
        labelled = defaultdict(list)
        for repo, commit, path, line, pattern, rule, *_ in rows:
            labelled[(repo, path)].append((rule, pattern, int(line)))
        for entry in open(listed).read().splitlines()[1:]:
            cells = entry.split("\t")
            if len(cells) < 4 or cells[3].strip() != "full":
                continue
            repo, path = cells[0], cells[2]
            per_repo[repo].values[5] += 1
            for rule, at in findings_in(repo, path):
                if rule == "torch-missing-mixed-precision":
                    continue
                if not any(matches(rule, lr, p) and abs(at - ll) <= 1
                           for lr, p, ll in labelled[(repo, path)]):
                    per_repo[repo].values[4] += 1
                    per_rule[rule].values[4] += 1
                    print(f"unlabelled {repo} {path}:{at} {rule}")
    return per_repo, per_rule, listed is not None


overall_repo, overall_rule, overall = {}, defaultdict(Counts), Counts()
tables = []
for labels_path in label_paths:
    per_repo, per_rule, with_files = score(labels_path)
    total = Counts()
    for counts in per_repo.values():
        total.add(counts)
    overall.add(total)
    for rule, counts in per_rule.items():
        overall_rule[rule].add(counts)
    overall_repo.update(per_repo)
    tables.append((os.path.basename(labels_path), per_repo, per_rule, total,
                   with_files))

header = ("| {} | true issues found | traps flagged | unlabelled findings |\n"
          "| --- | --- | --- | --- |")
for name, per_repo, per_rule, total, with_files in tables:
    print(f"\n### {name}\n")
    print(header.format("repository"))
    for repo in sorted(per_repo):
        print(per_repo[repo].row(repo))
    print(total.row("**all**"))
print("\n### every label file, per rule\n")
print(header.format("rule"))
for rule in sorted(overall_rule):
    print(overall_rule[rule].row(rule))
print(overall.row("**all**"))
f, n, t, m, u, full = overall.values
print(f"\nall: recall {f}/{n} = {f / max(1, n):.2f}; traps flagged {t}/{m} = "
      f"{t / max(1, m):.2f}; unlabelled findings {u} in {full} fully "
      f"labelled files ({u / max(1, full):.2f} per file)")
