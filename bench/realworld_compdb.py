#!/usr/bin/env python3
"""Writes a compile_commands.json for every labelled sub-project of one repo
(with REALWORLD_ALL_SOURCES set: for every sub-project).

    realworld_compdb.py LABELS REPO_NAME TREE STUBS [SPECS] > compile_commands.json

A sub-project is the nearest folder above a labelled file whose
CMakeLists.txt declares a project(), or that holds a qmake project file
(*.pro), the repo's root only when no deeper one does; a CMakeLists.txt
without one is a part that a project adds. Each unit of it
is analyzed, and so are the units beside the headers it includes from folders
shared across the repo (a `utils/` with the project's own loader classes):
they belong to the same program, and the unit that chooses the device or
defines the loader is often not the labelled one.

Include paths are found, not configured per repo: the sub-project's folders
that hold headers come first, then the shared folders (outside every
sub-project) that do. The language standard is the one the sub-project's
CMakeLists.txt asks for (CMAKE_CXX_STANDARD, a target's CXX_STANDARD or cxx_std_NN), C++17 otherwise.
LIBTORCH2_INCLUDE: libtorch >= 2 headers, used for a C++20 sub-project
(Debian 12's libtorch 1.13 does not build as C++20).

SPECS: a JSON file of repos whose units and flags were written down by hand
(the corpus's repos-*.json, bench/realworld-repos-*.json: "tus", "inc",
"std", "torch2", "stubs"). For a repo it names, its listed units are
analyzed with its flags, and so is every other unit of the sub-projects that
hold them or a labelled file: a listed unit's sub-project gets that unit's
own extra flags. Such lists name the units beside the labelled lines, not
always those on their call chains (the unit that calls a helper per step).
"""
import json
import os
import re
import sys
import sysconfig
from collections import defaultdict

labels_path, repo, tree, stubs = sys.argv[1:5]
spec = {}
if len(sys.argv) > 5 and os.path.isfile(sys.argv[5]):
    spec = json.load(open(sys.argv[5])).get(repo, {})
SOURCES = (".cpp", ".cc", ".cxx")
HEADERS = (".h", ".hpp", ".hh")
DEFAULT_PATHS = ("/usr/include", "/usr/include/x86_64-linux-gnu",
                 "/usr/local/include", "/usr/lib/llvm-19/lib/clang/19/include")
SKIP = {".git", "build", "third_party", "thirdparty", "external", "extern"}

labelled = sorted({row.split("\t")[2]
                   for row in open(labels_path).read().splitlines()[1:]
                   if row.split("\t")[0] == repo})


def build_tree(folder):
    """A build folder committed with the sources (CMake's, any name)."""
    return os.path.isfile(os.path.join(folder, "CMakeCache.txt")) or \
        os.path.isdir(os.path.join(folder, "CMakeFiles"))


def walk(top, vendored=False):
    """Folders and their files; vendored code (third_party/) only when asked:
    its headers are found, its units are not the project's. Build folders are
    never the project's."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and
                         (vendored or d not in SKIP) and
                         not build_tree(os.path.join(folder, d)))
        yield folder, sorted(files)


# A listed unit is a file of the program, as a labelled one is; and its extra
# flags (per-unit flags of the list) go to its sub-project.
listed = [(tu, []) if isinstance(tu, str) else (tu[0], tu[1])
          for tu in spec.get("tus", [])]
labelled = sorted(set(labelled) | {tu for tu, _ in listed})
for rel, text in spec.get("stubs", {}).items():
    path = os.path.join(stubs, rel)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

if os.environ.get("REALWORLD_ALL_SOURCES"):
    # bench/sweep.sh: every source of the repo, labelled or not, so that
    # every sub-project is a program of the database.
    labelled = sorted(os.path.relpath(os.path.join(folder, f), tree)
                      for folder, files in walk(tree) for f in files
                      if f.endswith(SOURCES))


def declares_project(folder):
    """A CMake project(), or a qmake project file (Qt's *.pro: each one is a
    program built from its own folder, whatever its siblings hold)."""
    cmake = os.path.join(folder, "CMakeLists.txt")
    if os.path.isfile(cmake) and re.search(
            r"^\s*project\s*\(", open(cmake, errors="replace").read(),
            re.I | re.M):
        return True
    return any(f.endswith(".pro") and os.path.isfile(os.path.join(folder, f))
               for f in os.listdir(folder))


projects = set()
for path in labelled:
    folder = os.path.dirname(os.path.join(tree, path))
    while True:
        if declares_project(folder) or os.path.samefile(folder, tree):
            projects.add(os.path.relpath(folder, tree))
            break
        folder = os.path.dirname(folder)
# Every folder below the root that declares a project is some sub-project:
# the folders outside all of them are shared.
all_projects = {os.path.relpath(f, tree) for f, files in walk(tree)
                if declares_project(f) and not os.path.samefile(f, tree)}


def inside(path, folder):
    return folder == "." or path == folder or path.startswith(folder + "/")


shared_headers = []  # folders outside every sub-project that hold headers
for folder, files in walk(tree):
    rel = os.path.relpath(folder, tree)
    if any(inside(rel, p) for p in all_projects):
        continue
    if any(f.endswith(HEADERS) for f in files):
        shared_headers.append(rel)


def standard(project):
    text = ""
    cmake = os.path.join(tree, project, "CMakeLists.txt")
    if os.path.isfile(cmake):
        text = open(cmake, errors="replace").read()
    found = re.search(r"CXX_STANDARD\s+(\d+)", text) or \
        re.search(r"cxx_std_(\d+)", text)
    return int(found.group(1)) if found else 17


def torch_includes(std):
    t2 = os.environ.get("LIBTORCH2_INCLUDE")
    if std >= 20 and t2:
        return ["-isystem", t2, "-isystem", t2 + "/torch/csrc/api/include"]
    return ["-isystem", "/usr/include/torch/csrc/api/include"]


header_folders = defaultdict(list)  # a header's name -> the folders with it
for folder, files in walk(tree, vendored=True):
    for f in files:
        if f.endswith(HEADERS):
            header_folders[f].append(os.path.relpath(folder, tree))


def folders_holding(include):
    """The include paths under which `include`, as written, is found."""
    sub = os.path.dirname(include)
    result = set()
    for rel in header_folders.get(os.path.basename(include), []):
        if sub:
            if rel != sub and not rel.endswith("/" + sub):
                continue
            rel = rel[:-len(sub)].rstrip("/") or "."
        result.add(rel)
    return sorted(result)


# Quoted includes, and bracketed ones of files with a header's extension
# (<RLGymPPO_CPP/Lists.h>, <stb_image.h>; not <vector>).
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+\.(?:h|hpp|hh))>)', re.M)


def includes(text):
    return [quoted or bracketed for quoted, bracketed in INCLUDE.findall(text)]
def listed_flags(unit):
    """A listed unit's own flags; for another unit, those of the listed unit
    nearest to it in the tree (the program it belongs to)."""
    def shared(tu):
        a, b = tu.split("/")[:-1], unit.split("/")[:-1]
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n
    nearest = max(listed, key=lambda item: shared(item[0]), default=None)
    return nearest[1] if nearest and shared(nearest[0]) > 0 or \
        nearest and nearest[0] == unit else []


entries = []
seen = set()
for project in sorted(projects):
    own_headers, units = [], []
    for folder, files in walk(os.path.join(tree, project)):
        rel = os.path.relpath(folder, tree)
        if rel != project and any(inside(rel, p) for p in all_projects
                                  if p != project and inside(p, project)):
            continue  # a nested sub-project is a program of its own
        if any(f.endswith(HEADERS) for f in files):
            own_headers.append(rel)
        units += [os.path.join(rel, f) for f in files if f.endswith(SOURCES)]
    # The shared folders whose headers the sub-project includes bring their
    # units along.
    included = set()
    for unit in units:
        text = open(os.path.join(tree, unit), errors="replace").read()
        included |= {os.path.basename(h) for h in includes(text)}
    for folder in shared_headers:
        files = os.listdir(os.path.join(tree, folder))
        if any(f in included for f in files):
            units += sorted(os.path.join(folder, f) for f in files
                            if f.endswith(SOURCES))
    # An include found nowhere on those paths, from a unit or from a header
    # it includes, is looked up in the whole repo: found in exactly one
    # folder (a library project beside this one, a vendored header), that
    # folder joins the paths, and a library's units come along (beside the
    # header, or in the src/ beside its include/). A system header in a
    # folder of its own (/usr/include/stb/stb_image.h) is found the same way.
    extra_headers, system_headers = [], []
    uses_pybind11 = False
    queue, visited = list(units), set()
    while queue:
        current = queue.pop()
        if current in visited:
            continue
        visited.add(current)
        text = open(os.path.join(tree, current), errors="replace").read()
        for name in includes(text):
            uses_pybind11 |= name.startswith("pybind11/")
            paths = [os.path.dirname(current)] + own_headers + \
                shared_headers + extra_headers
            here = next((os.path.normpath(os.path.join(d, name)) for d in paths
                         if os.path.isfile(os.path.join(tree, d, name))), None)
            if here:
                if here.endswith(HEADERS):
                    queue.append(here)
                continue
            candidates = folders_holding(name)
            if len(candidates) != 1:
                if any(os.path.isfile(os.path.join(d, name)) for d in DEFAULT_PATHS):
                    continue
                system = sorted(d for d in os.listdir("/usr/include")
                                if os.path.isfile(os.path.join("/usr/include", d, name)))
                if len(system) == 1 and "/usr/include/" + system[0] not in system_headers:
                    system_headers.append("/usr/include/" + system[0])
                continue
            folder = candidates[0]
            extra_headers.append(folder)
            queue.append(os.path.normpath(os.path.join(folder, name)))
            for place in (os.path.join(folder, os.path.dirname(name)),
                          os.path.join(os.path.dirname(folder), "src")
                          if os.path.basename(folder) == "include" else None):
                if not place or any(part in SKIP for part in place.split("/")):
                    continue
                full = os.path.join(tree, place)
                if os.path.isdir(full):
                    added = sorted(os.path.join(place, f)
                                   for f in os.listdir(full)
                                   if f.endswith(SOURCES))
                    units += added
                    queue += added
    own_headers += extra_headers
    if spec:
        std = int(spec.get("std", "c++17").split("++")[-1])
        torch = torch_includes(20 if spec.get("torch2") else 17)
    else:
        std = standard(project)
        torch = torch_includes(std)
    flags = ["clang++", f"-std=c++{std}"] + torch + \
        ["-I/usr/include/opencv4", f"-I{stubs}", "-D_GLIBCXX_USE_CXX11_ABI=1"]
    if spec:  # the list's flags first: they are what the project's build sets
        flags += spec.get("inc", [])
    for folder in own_headers + shared_headers:
        flags.append("-I" + os.path.normpath(folder))
    # After the system's own folders: a folder of /usr/include that alone
    # holds one header the code names must not shadow the others
    # (/usr/include/linux has a stddef.h).
    flags += ["-idirafter" + d for d in system_headers]
    if uses_pybind11:  # what pybind11's CMake package adds
        flags += ["-isystem" + sysconfig.get_paths()["include"]]
    for unit in units:
        unit = os.path.normpath(unit)
        if unit in seen:
            continue
        seen.add(unit)
        entries.append({"directory": os.path.abspath(tree), "file": unit,
                        "arguments": flags + listed_flags(unit) +
                        ["-I" + (os.path.dirname(unit) or "."),
                                              "-c", unit, "-o", "/dev/null"]})
print(json.dumps(entries, indent=1))
