"""Reads a jitdump through `jitsym dump` (the record printer, not the symbol
logic) into CODE_LOAD and JITSYM_CODE_UNLOAD records, for tests that check
the JVMTI agent's output against the JVM itself."""
import re
import subprocess

LOAD = re.compile(r'^@\d+ CODE_LOAD size \d+ timestamp (\d+): .* code_addr (0x[0-9a-f]+) '
                  r'code_size (0x[0-9a-f]+) code_index (\d+) name "(.*)"$')
UNLOAD = re.compile(r'^@\d+ JITSYM_CODE_UNLOAD size \d+ timestamp (\d+): .* code_addr '
                    r'(0x[0-9a-f]+) code_size (0x[0-9a-f]+) code_index (\d+)$')


def unescape(name):
    return name.encode("latin-1", "backslashreplace").decode("unicode_escape").encode(
        "latin-1").decode("utf-8", "replace")


def read(jitsym, path):
    """Returns (loads, unloads): loads as dicts (time, address, size, index,
    name); unloads as a dict code_index -> time."""
    out = subprocess.run([jitsym, "dump", path], capture_output=True, text=True,
                         check=True).stdout
    loads, unloads = [], {}
    for line in out.splitlines():
        m = LOAD.match(line)
        if m:
            loads.append({"time": int(m.group(1)), "address": int(m.group(2), 16),
                          "size": int(m.group(3), 16), "index": int(m.group(4)),
                          "name": unescape(m.group(5))})
            continue
        m = UNLOAD.match(line)
        if m:
            unloads[int(m.group(4))] = int(m.group(1))
    return loads, unloads
