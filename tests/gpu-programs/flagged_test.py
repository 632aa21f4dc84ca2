#!/usr/bin/env python3
"""Each whole program of bench/gpu-programs is what its manifest says: the
analyzer reports the pair's rule on the listed line of the original, and
reports that rule nowhere in the fixed twin. Otherwise the GPU check would
time a pattern the analyzer does not find, or a fix it would still flag.

    flagged_test.py TORCHLINT BUILD_DIR MANIFEST
"""
import json
import os
import subprocess
import sys


def main(torchlint, build, manifest_path):
    manifest = json.load(open(manifest_path))
    done = subprocess.run([torchlint, build, "--format=json", "--quiet",
                           "--checks=*"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit("flagged_test: torchlint exited with %d: %s" %
                 (done.returncode, done.stderr.strip()))
    found = {}
    for finding in json.loads(done.stdout)["findings"]:
        program = os.path.basename(finding["file"])[:-len(".cpp")]
        found.setdefault(program, set()).add((finding["rule"], finding["line"]))
    failures = []
    for pair in manifest:
        original = found.get(pair["original"], set())
        if (pair["rule"], pair["line"]) not in original:
            failures.append("%s: %s is not reported at %s.cpp:%d (found: %s)" % (
                pair["id"], pair["rule"], pair["original"], pair["line"],
                sorted(original)))
        still = sorted(line for rule, line in found.get(pair["fixed"], set())
                       if rule == pair["rule"])
        if still:
            failures.append("%s: the fixed twin %s.cpp still has %s at %s" % (
                pair["id"], pair["fixed"], pair["rule"], still))
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    if failures:
        return 1
    print("flagged_test: %d pairs: each original flagged on its line, no twin"
          % len(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
