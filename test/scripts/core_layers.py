#!/usr/bin/python3
"""Checks that core/ is layered as DESIGN.md says: each folder includes only
its own headers and those of the folders below it, and no file reaches into
another folder's private headers (core/src/FOLDER/*.h).

usage: core_layers.py CORE_DIR [--inject FROM:TO]
  --inject  pretends a file of FROM includes a header of TO (the test's
            proof that an upward include is caught)
Prints each upward include as 'FILE: includes FOLDER/HEADER (up from F to T)'
and, last, 'layers: N includes across folders, M upward'.
"""
import os
import re
import sys

# Lowest first: the order of core/CMakeLists.txt and of DESIGN.md's layout.
LAYERS = ["base", "arch", "formats", "symbols", "plan", "files", "objects"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:jitsym/([a-z]+)/|\.\./([a-z]+)/)([^"]+)"', re.M)


def folder_of(path, core):
    parts = os.path.relpath(path, core).split(os.sep)
    if parts[0] == "include" and len(parts) > 2:
        return parts[2]
    if parts[0] == "src" and len(parts) > 1:
        return parts[1]
    return None


def main(argv):
    core = argv[0]
    injected = [tuple(a.split(":")) for a in argv[2::2]] if "--inject" in argv else []
    across, upward = 0, []
    for root, _, files in os.walk(core):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            here = folder_of(path, core)
            if here not in LAYERS:
                continue
            with open(path, encoding="utf-8") as f:
                found = [(m.group(1) or m.group(2), m.group(3), bool(m.group(2)))
                         for m in INCLUDE.finditer(f.read())]
            for source, target in injected:
                if source == here and name.endswith(".cpp"):
                    found.append((target, "Injected.h", False))
                    injected.remove((source, target))
            for there, header, private in found:
                if there == here or there not in LAYERS:
                    continue
                across += 1
                rel = os.path.relpath(path, core)
                if private:
                    upward.append("%s: includes %s/%s (another folder's private header)"
                                  % (rel, there, header))
                elif LAYERS.index(there) > LAYERS.index(here):
                    upward.append("%s: includes %s/%s (up from %s to %s)"
                                  % (rel, there, header, here, there))
    for line in sorted(upward):
        print(line)
    print("layers: %d includes across folders, %d upward" % (across, len(upward)))
    return 1 if upward else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
