#!/usr/bin/env python3
"""A compilation database for test programs, each compiled as the first
unit of a model database (test-inputs' own) is: its command, with the file
swapped. What the C++ suites' dataDatabase() does, for the script tests.

    compile_database.py MODEL.json OUT.json FILE...
"""
import json
import sys


def write(model_path, out_path, files):
    model = json.load(open(model_path))[0]
    units = []
    for path in files:
        entry = dict(model)
        entry["command"] = entry["command"].replace(model["file"], path)
        entry["file"] = path
        units.append(entry)
    with open(out_path, "w") as out:
        json.dump(units, out, indent=1)
    return out_path


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2], sys.argv[3:])
