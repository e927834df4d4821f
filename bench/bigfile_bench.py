#!/usr/bin/python3
"""Time and peak memory of reading a 1 GiB perf map and a 1 GiB jitdump, the
files of a long-running JIT (issue 8's bound). The map has 13.6M lines over 1M
reused addresses (a runtime that recompiles into freed memory); the dump has
262k records of 4 KiB of code each. Each is read whole by `jitsym lookup`
(the readers and table jit-sync uses), under /usr/bin/time.

usage: bench/bigfile_bench.py BUILD_DIR [SCRATCH_DIR] [BYTES]
"""
import os
import struct
import subprocess
import sys
import tempfile


def write_map(path, target):
    base, slots, n, size = 0x7F0000000000, 1 << 20, 0, 0
    with open(path, "wb") as f:
        while size < target:
            chunk = "".join("%x 10 LazyCompile:*workerFunction_%d /srv/app/lib/module.js:%d\n" % (
                base + ((n + i) % slots) * 16, n + i, (n + i) % 5000) for i in range(200000)).encode()
            f.write(chunk)
            size += len(chunk)
            n += 200000


def write_dump(path, target):
    code = b"\xc3" * 4096
    with open(path, "wb") as f:
        f.write(struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 4242, 1, 0))
        n, size = 0, 40
        while size < target:
            address = 0x7F0000000000 + (n % 65536) * 4096
            body = struct.pack("<IIQQQQ", 4242, 4242, address, address, 4096, n) + \
                b"JS:*fn_%d /srv/app/x.js:1\0" % n + code
            record = struct.pack("<IIQ", 0, 16 + len(body), n) + body
            f.write(record)
            size += len(record)
            n += 1


def measure(jitsym, path, address):
    run = subprocess.run(["/usr/bin/time", "-f", "%e %M", jitsym, "lookup", path, address],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    seconds, kb = run.stderr.split()[-2:]
    return float(seconds), int(kb) / 1024


def main(argv):
    if not argv:
        sys.exit(__doc__)
    jitsym = os.path.join(argv[0], "bin", "jitsym")
    scratch = argv[1] if len(argv) > 1 else tempfile.mkdtemp(prefix="jitsym-bigfile-")
    target = int(argv[2]) if len(argv) > 2 else 1 << 30
    for kind, writer, address in (("perf map", write_map, "7f0000000010"),
                                  ("jitdump", write_dump, "7f0000001000")):
        path = os.path.join(scratch, "big." + ("map" if kind == "perf map" else "dump"))
        writer(path, target)
        size_mb = os.path.getsize(path) / (1 << 20)
        seconds, peak_mb = measure(jitsym, path, address)
        print("%-8s %7.0f MiB: read in %6.2f s, peak RSS %6.0f MiB (%.2f x the file)" % (
            kind, size_mb, seconds, peak_mb, peak_mb / size_mb))
        os.unlink(path)


if __name__ == "__main__":
    main(sys.argv[1:])
