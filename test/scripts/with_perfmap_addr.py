#!/usr/bin/python3
"""Runs a command with @ADDR@ in its arguments replaced by an address inside a
perf map symbol, for tests whose addresses are only known at run time.

usage: with_perfmap_addr.py MAP NAME OFFSET -- COMMAND ARGS...

The symbol is the last entry whose name contains NAME (the later entry wins in
a perf map); it must be larger than OFFSET and no later entry may overlap it.
@ADDR@ becomes 0x<start+OFFSET> in lower-case hex; @START@ becomes 0x<start>.
Exits with the command's status.
"""
import subprocess
import sys


def parse(line):
    fields = line.split(None, 2)
    if len(fields) < 3:
        return None
    try:
        return int(fields[0], 16), int(fields[1], 16), fields[2].strip()
    except ValueError:
        return None


def main():
    separator = sys.argv.index("--")
    map_path, name, offset = sys.argv[1:separator]
    offset = int(offset, 0)
    command = sys.argv[separator + 1:]
    with open(map_path, encoding="utf-8", errors="replace") as f:
        entries = [e for e in map(parse, f.read().splitlines()) if e]
    matches = [i for i, e in enumerate(entries) if name in e[2]]
    if not matches:
        sys.exit("error: no entry named like '%s' in %s" % (name, map_path))
    index = matches[-1]
    start, size, full_name = entries[index]
    if size <= offset:
        sys.exit("error: '%s' is only 0x%x bytes" % (full_name, size))
    for later_start, later_size, later_name in entries[index + 1:]:
        if later_start < start + size and start < later_start + max(later_size, 1):
            sys.exit("error: '%s' is overlapped by the later '%s'" % (full_name, later_name))
    values = {"@ADDR@": "0x%x" % (start + offset), "@START@": "0x%x" % start}
    for key, value in values.items():
        command = [arg.replace(key, value) for arg in command]
    sys.stdout.flush()
    sys.exit(subprocess.call(command))


if __name__ == "__main__":
    main()
