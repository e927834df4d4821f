#!/usr/bin/env python3
"""Builds a jitdump file from readable text, one record per line, for tests.

  header [version=1] [mach=62] [pid=N] [size=40] [magic=0xHEX] [swapped]
  load addr=HEX size=HEX [index=N] [pid=N] [tid=N] [vma=HEX] [total=N] [codesize=N]
       [code=HEXBYTES] [noterm] name=REST OF LINE
  move old=HEX new=HEX size=HEX [index=N] [total=N]
  debug addr=HEX [total=N] [count=N] entry=HEX:LINE:COL:FILE ...   (FILE '=': as before)
  unwind data=HEXBYTES [hdr=N] [mapped=N] [total=N]
  close
  record id=N [size=N]          a record of any id, zero-filled
  junk N [byte=HEX]             N bytes that are no record (0xab unless given)
  truncate N                    drop the last N bytes written so far

Numbers are decimal or 0x-prefixed; `total=`, `codesize=` and `count=` write a
wrong total_size, code_size or nr_entry on purpose, `noterm` a name without its
NUL; `swapped` writes every field in big-endian order. Lines starting with
# are comments. usage: mkjitdump.py IN.txt OUT.dump
"""
import struct
import sys

MAGIC = 0x4A695444


def num(text):
    return int(text, 0)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    out = bytearray()
    order = "<"
    timestamp = 1000
    for lineno, raw in enumerate(open(src, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        kind, _, rest = line.strip().partition(" ")
        name = None
        if "name=" in rest:
            rest, _, name = rest.partition("name=")
        fields, entries, flags = {}, [], set()
        for token in rest.split():
            key, eq, value = token.partition("=")
            if not eq:
                flags.add(key)
            elif key == "entry":
                entries.append(value)
            else:
                fields[key] = value

        def get(key, default=0):
            return num(fields[key]) if key in fields else default

        def record(rid, body):
            nonlocal timestamp
            timestamp += 1
            total = get("total", 16 + len(body))
            return struct.pack(order + "IIQ", rid, total, timestamp) + body

        if kind == "header":
            if "swapped" in flags:
                order = ">"
            out += struct.pack(order + "IIIIIIQQ", get("magic", MAGIC), get("version", 1),
                               get("size", 40), get("mach", 62), 0, get("pid", 4242), 1, 0)
            out += bytes(max(0, get("size", 40) - 40))
        elif kind == "load":
            # The code: its first bytes as given, then zeros.
            code = bytes.fromhex(fields.get("code", ""))
            code += bytes(max(0, get("size") - len(code)))
            body = struct.pack(order + "IIQQQQ", get("pid", 4242), get("tid", 4242),
                               get("vma", get("addr")), get("addr"),
                               get("codesize", get("size")), get("index"))
            end = b"" if "noterm" in flags else b"\0"
            out += record(0, body + name.encode("utf-8") + end + code)
        elif kind == "move":
            body = struct.pack(order + "IIQQQQQ", 4242, 4242, get("new"), get("old"),
                               get("new"), get("size"), get("index"))
            out += record(1, body)
        elif kind == "debug":
            body = struct.pack(order + "QQ", get("addr"), get("count", len(entries)))
            for entry in entries:
                address, line_no, column, file = entry.split(":", 3)
                body += struct.pack(order + "QII", num(address), num(line_no), num(column))
                body += (b"\xff" if file == "=" else file.encode("utf-8")) + b"\0"
            body += bytes(-len(body) % 8)
            out += record(2, body)
        elif kind == "unwind":
            data = bytes.fromhex(fields.get("data", ""))
            body = struct.pack(order + "QQQ", len(data), get("hdr", 0), get("mapped", 0)) + data
            body += bytes(-len(body) % 8)
            out += record(4, body)
        elif kind == "close":
            out += record(3, b"")
        elif kind == "record":
            out += record(get("id"), bytes(max(0, get("size", 16) - 16)))
        elif kind == "junk":
            count = num(rest.split()[0])
            out += bytes([get("byte", 0xAB)]) * count
        elif kind == "truncate":
            del out[len(out) - num(rest.strip()):]
        else:
            sys.exit(f"{src}:{lineno}: unknown record kind '{kind}'")
    with open(dst, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
