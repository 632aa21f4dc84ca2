#!/usr/bin/env python3
"""Each unit's analysis against its parse, for bench/unit-times.sh.

    unit_times.py OUT TORCHLINT JOBS MATCH REPEATS

Reads the databases OUT/times-*.json, writes OUT/unit-times.tsv and prints a
summary. The analysis is `torchlint --no-cache --no-summaries -j 1
--checks=*` (no cache, no precompiled prefix: the slowest way it runs); the
parse is `clang++-19 -fsyntax-only` with the unit's flags, made to parse what
the analysis parses:

- `-ferror-limit=0`, as the analysis has: otherwise clang stops after 20
  errors in code it rejects;
- an empty stand-in for each header that is not found: clang stops at that
  fatal error, where the analysis makes it an ordinary error and parses the
  rest of the unit. The stand-ins are counted in the `stand_ins` column.

A small unit's runs are noisy: on a parse of 0.1 s, mostly the loading of
libclang-cpp and libLLVM, this virtual machine's state moves either side by
a fifth from one minute to the next. So a unit whose parse takes under
SMALL_PARSE_S, or whose analysis comes within 10% of its parse, is measured
REPEATS times more, analysis and parse back to back in each round, and is
called slower only when its analysis is slower in so many rounds that a
one-sided sign test puts parity below 5%, divided by the number of units so
measured (Bonferroni's correction: of 14 units at parity, one in two runs
would otherwise find one "slower"). Two runs of one round share the
machine's state, two rounds need not. The table keeps each side's fastest
run, in wall time, and the CPU time (user + system, from wait4) of that run.
"""
import concurrent.futures
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import typing

SMALL_PARSE_S = 0.5
SIGNIFICANCE = 0.05
MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")


def run(command, cwd):
    """(wall seconds, CPU seconds, exit status, standard error) of command."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                                   stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        # Reaped by wait4: Popen must not wait for it again.
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        return (wall, usage.ru_utime + usage.ru_stime, process.returncode,
                errors.read().decode(errors="replace"))


def stand_in(missing, root):
    """Writes an empty header that `#include "missing"` finds through the
    include directory returned, a directory of root deep enough for the
    `..` components of missing to stay inside root."""
    depth = missing.split("/").count("..") + 1
    directory = os.path.join(root, *["d"] * depth)
    header = os.path.normpath(os.path.join(directory, missing))
    os.makedirs(os.path.dirname(header), exist_ok=True)
    os.makedirs(directory, exist_ok=True)  # `..` is resolved on disk
    open(header, "w").close()
    return directory


class Unit:
    def __init__(self, repo, database, entry, torchlint, stand_ins_root):
        self.repo = repo
        self.directory = entry["directory"]
        self.file = entry["file"]
        self.analysis = [torchlint, "--no-cache", "--no-summaries", "-j", "1",
                         "--checks=*", "--format=json", database,
                         os.path.join(self.directory, self.file)]
        self.flags = [a for a in entry["arguments"][1:]
                      if a not in ("-c", "-o", "/dev/null", self.file)]
        self.flags.append("-ferror-limit=0")
        self.stand_ins_root = stand_ins_root
        self.stand_ins = set()

    def parse_command(self):
        return ["clang++-19", "-fsyntax-only"] + self.flags + [self.file]

    def parse(self):
        """Parses once, first giving each missing header a stand-in."""
        while True:
            wall, cpu, status, errors = run(self.parse_command(),
                                            self.directory)
            missing = set(MISSING_HEADER.findall(errors)) - self.stand_ins
            if status == 0 or not missing:
                return wall, cpu, status
            for header in missing:
                include = stand_in(header, self.stand_ins_root)
                if "-I" + include not in self.flags:
                    self.flags.append("-I" + include)
            self.stand_ins |= missing

    def analyze(self):
        wall, cpu, status, _ = run(self.analysis, self.directory)
        return wall, cpu, status


def chance_at_parity(slower_rounds, rounds):
    """One-sided sign test: the chance of so many slower rounds at parity."""
    tail = sum(math.comb(rounds, k) for k in range(slower_rounds, rounds + 1))
    return tail / 2 ** rounds


def measure(unit, repeats):
    """(fastest analysis, fastest parse, rounds, rounds the analysis was
    slower in): each of the first two a (wall, CPU, status)."""
    analysis, parse = unit.analyze(), unit.parse()
    rounds = [(analysis, parse)]
    if parse[0] < SMALL_PARSE_S or analysis[0] > 0.9 * parse[0]:
        rounds += [(unit.analyze(), unit.parse()) for _ in range(repeats)]
    return (min(a for a, _ in rounds), min(p for _, p in rounds), len(rounds),
            sum(a[0] > p[0] for a, p in rounds))


class Row(typing.NamedTuple):
    repo: str
    unit: str
    analysis: tuple
    parse: tuple
    rounds: int
    slower_rounds: int
    stand_ins: int
    slower: bool = False

    def ratio(self):
        return self.analysis[0] / self.parse[0]


def main():
    out, torchlint, jobs, match, repeats = sys.argv[1:6]
    jobs, repeats = int(jobs), int(repeats)
    sources = os.path.join(out, "src")
    stand_ins = tempfile.TemporaryDirectory(prefix="stand-ins-", dir=out)
    units = []
    for database in sorted(glob.glob(os.path.join(out, "times-*.json"))):
        repo = os.path.basename(database)[len("times-"):-len(".json")]
        for entry in json.load(open(database)):
            path = os.path.relpath(
                os.path.join(entry["directory"], entry["file"]), sources)
            if re.search(match, path):
                units.append((path, Unit(
                    repo, database, entry, torchlint,
                    os.path.join(stand_ins.name, str(len(units))))))

    rows = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        measured = pool.map(lambda u: measure(u[1], repeats), units)
        for (path, unit), result in zip(units, measured):
            rows.append(Row(unit.repo, path, *result, len(unit.stand_ins)))
            print("%s\t%.3f\t%.3f\t%d" % (path, rows[-1].analysis[0],
                                           rows[-1].parse[0], rows[-1].rounds),
                  file=sys.stderr)

    repeated = sum(r.rounds > 1 for r in rows)
    rows = [r._replace(slower=r.slower_rounds == 1 if r.rounds == 1 else
                       chance_at_parity(r.slower_rounds, r.rounds)
                       < SIGNIFICANCE / repeated)
            for r in rows]
    with open(os.path.join(out, "unit-times.tsv"), "w") as tsv:
        tsv.write("repo\tunit\tanalysis_s\tparse_s\tratio\tanalysis_cpu_s\t"
                  "parse_cpu_s\trounds\tslower_rounds\tslower\tstand_ins\t"
                  "torchlint_exit\tclang_exit\n")
        for r in rows:
            tsv.write("%s\t%s\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t"
                      "%d\t%d\n" % (r.repo, r.unit, r.analysis[0], r.parse[0],
                                    r.ratio(), r.analysis[1], r.parse[1],
                                    r.rounds, r.slower_rounds, r.slower,
                                    r.stand_ins, r.analysis[2], r.parse[2]))

    ratios = [r.ratio() for r in rows]
    print(f"{len(rows)} units, {repeated} measured again {repeats} times; "
          f"analysis/parse: min {min(ratios):.2f}, max {max(ratios):.2f}; "
          f"analysis "
          f"{sum(r.analysis[0] for r in rows):.0f} s, parse "
          f"{sum(r.parse[0] for r in rows):.0f} s in all; "
          f"{sum(r.stand_ins > 0 for r in rows)} parses given stand-in headers")
    print("\nslowest five analyses:\n\n| unit | analysis (s) | parse (s) | "
          "ratio |\n| --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: -r.analysis[0])[:5]:
        print(f"| {r.unit} | {r.analysis[0]:.2f} | {r.parse[0]:.2f} | "
              f"{r.ratio():.2f} |")
    for verdict, chosen in (
            ("analyzed slower than parsed", [r for r in rows if r.slower]),
            ("whose fastest analysis is slower than the fastest parse, by no "
             "more than chance", [r for r in rows if not r.slower
                                  and r.analysis[0] > r.parse[0]])):
        print(f"\n{len(chosen)} units {verdict}" + (":" if chosen else ""))
        for r in chosen:
            print(f"  {r.unit}: {r.analysis[0]:.3f} s against "
                  f"{r.parse[0]:.3f} s (CPU {r.analysis[1]:.3f} against "
                  f"{r.parse[1]:.3f}); slower in {r.slower_rounds} of "
                  f"{r.rounds} rounds; torchlint exit {r.analysis[2]}, clang "
                  f"exit {r.parse[2]}; {r.stand_ins} stand-in headers")


if __name__ == "__main__":
    main()
