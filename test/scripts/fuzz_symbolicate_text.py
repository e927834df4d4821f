#!/usr/bin/env python3
"""A bounded fuzz test of jit-symbolicate's text handling (python/jitsym).

symbolicate_text() reads crash logs and backtraces a crashed process, its
runtime or a user wrote: untrusted text. No coverage-guided fuzzer for Python
is available here (atheris is not packaged), so this mutates the texts of the
symbolicate fuzz target's stored corpus (and a few of its own) at random, from
a fixed seed, for a bounded time, and checks on every text:
  - no exception;
  - describe() is asked about exactly the addresses ADDRESS finds, in order,
    as return addresses exactly on "frame #N" / "#N" lines with N > 0;
  - removing the inserted descriptions gives the text back; one is inserted
    after an address exactly when it was named, the rest of its line does not
    name it already, and the address is not the base of "+offset";
  - the counts returned are those of the addresses found and named;
and, with --jitsym, that ADDRESS takes for addresses exactly the words
`jitsym symbolicate` does (a map covering every address, the texts in batches).
LLDB is not needed: symbolicate_text() gets a stand-in for the LLDB session,
and the module's lldb imports are stubbed.

  fuzz_symbolicate_text.py [--seconds S] [--seed N] [--corpus DIR] [--jitsym PATH]
Prints "N passed, 0 failed" (N texts) and exits 0, or shows the first text that
broke an invariant and exits 1.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def import_symbolicate():
    # symbolicate.py subclasses lldb.utils.symbolication.Image and
    # lldb.plugins.parsed_cmd.ParsedCommand at import; the text handling uses
    # neither.
    lldb = types.ModuleType("lldb")
    utils = types.ModuleType("lldb.utils")
    symbolication = types.ModuleType("lldb.utils.symbolication")
    symbolication.Image = object
    plugins = types.ModuleType("lldb.plugins")
    parsed_cmd = types.ModuleType("lldb.plugins.parsed_cmd")
    parsed_cmd.ParsedCommand = object
    lldb.utils, utils.symbolication = utils, symbolication
    lldb.plugins, plugins.parsed_cmd = plugins, parsed_cmd
    for name, module in [("lldb", lldb), ("lldb.utils", utils),
                         ("lldb.utils.symbolication", symbolication),
                         ("lldb.plugins", plugins), ("lldb.plugins.parsed_cmd", parsed_cmd)]:
        sys.modules.setdefault(name, module)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from jitsym import symbolicate
    return symbolicate


S = import_symbolicate()
MARK_OPEN, MARK_CLOSE = "\x01", "\x02"  # around inserted descriptions
DESCRIPTION = re.compile(" " + MARK_OPEN + "[^" + MARK_CLOSE + "]*" + MARK_CLOSE)


class FakeSession:
    """Names the addresses inside the map's ranges, as LLDB would."""

    def __init__(self, symbols):
        self.symbols = symbols  # (start, end, name)
        self.asked = []

    def describe(self, address, is_return_address):
        self.asked.append((address, is_return_address))
        for start, end, name in self.symbols:
            if start <= address < end:
                text = "%smod`%s + %d%s" % (MARK_OPEN, name, address - start, MARK_CLOSE)
                return text, name
        return None


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


def check_text(text, symbols):
    session = FakeSession(symbols)
    out, found, named = S.symbolicate_text(session, text)

    expected_asks, inserted = [], []
    for line in text.splitlines(keepends=True):
        frame = S.RETURN_FRAME.search(line)
        is_return = bool(frame) and int(frame.group(1)) > 0
        for match in S.ADDRESS.finditer(line):
            expected_asks.append((int(match.group(1), 16), is_return))
    check(session.asked == expected_asks, "describe() not asked about exactly the addresses")
    check(found == len(expected_asks), "found %d, not %d" % (found, len(expected_asks)))

    # Take the descriptions out again, line by line, and see where they were.
    answers = iter(session.asked)
    out_lines = out.splitlines(keepends=True)
    text_lines = text.splitlines(keepends=True)
    check(len(out_lines) == len(text_lines), "line count changed")
    named_count = 0
    for line, out_line in zip(text_lines, out_lines):
        check(DESCRIPTION.sub("", out_line) == line, "descriptions do not come out: %r" % out_line)
        pieces = DESCRIPTION.split(out_line)
        ends = [len("".join(pieces[: i + 1])) for i in range(len(pieces) - 1)]
        want = []
        for match in S.ADDRESS.finditer(line):
            address, _ = next(answers)
            hit = [s for s in symbols if s[0] <= address < s[1]]
            if not hit:
                continue
            named_count += 1
            rest = line[match.end():]
            if hit[0][2] not in rest and not rest.startswith("+"):
                want.append(match.end())
        check(ends == want, "descriptions at %s, not %s in %r" % (ends, want, line))
    check(named == named_count, "named %d, not %d" % (named, named_count))


def check_against_cli(jitsym, texts, workdir):
    """ADDRESS finds the words `jitsym symbolicate` annotates, with a map that
    covers every address but the last."""
    separator = "\n\n"
    text = separator.join(t.replace(MARK_OPEN, ".") for t in texts)
    marker = MARK_OPEN + "A" + MARK_CLOSE
    with open(os.path.join(workdir, "all.map"), "w") as f:
        f.write("0 ffffffffffffffff %s\n" % marker)
    with open(os.path.join(workdir, "text"), "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(text)
    run = subprocess.run([jitsym, "symbolicate", os.path.join(workdir, "all.map"),
                          os.path.join(workdir, "text")], stdout=subprocess.PIPE)
    check(run.returncode == 0, "jitsym symbolicate failed (%d)" % run.returncode)
    cli = run.stdout.decode("utf-8", errors="surrogatepass")

    # What it gives when it takes the same words for addresses as ADDRESS (the
    # whole text at once: C++ does not split lines, and ADDRESS needs none).
    def annotated(match):
        address = int(match.group(1), 16)
        if address == (1 << 64) - 1:  # not covered: the map ends before it
            return match.group(0)
        # The CLI shows a name's control characters escaped (PrintableText.h).
        shown = "\\x01A\\x02"
        return match.group(0) + " " + shown + ("+0x%x" % address if address else "")

    python = S.ADDRESS.sub(annotated, text)
    if cli != python:
        at = next(i for i in range(min(len(cli), len(python))) if cli[i] != python[i]) \
            if cli[: len(python)] != python[: len(cli)] else min(len(cli), len(python))
        raise Failure("jitsym symbolicate and ADDRESS disagree near %r / %r"
                      % (cli[max(0, at - 40): at + 40], python[max(0, at - 40): at + 40]))


PIECES = ["0x", "0X", "0x00007f", "7f02a8025bdd", "deadbeef", "cafe", "_", " ", "\t", "\n",
          "\r\n", "\r", "\x0c", "\x85", "\u2028", "+", "+0x31", "[", "]", "frame #", "frame #0",
          "frame #1", "#", "#12 ", "  * frame #3: ", " at ", "`", "é", "\ufffd", "٣", "\x00",
          "ffffffffffffffff", "10000000000000000", "0x0000000000000000"]


def mutate(rng, text, others):
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(7)
        at = rng.randint(0, len(text))
        if op == 0:
            text = text[:at] + rng.choice(PIECES) + text[at:]
        elif op == 1:
            text = text[:at] + rng.choice("0123456789abcdefABCDEFxX_ g") + text[at:]
        elif op == 2 and text:
            end = min(len(text), at + rng.randint(1, 16))
            text = text[:at] + text[end:]
        elif op == 3 and text:
            start = rng.randrange(len(text))
            text = text[:at] + text[start: start + rng.randint(1, 32)] + text[at:]
        elif op == 4 and others:
            other = rng.choice(others)
            start = rng.randint(0, len(other))
            text = text[:at] + other[start: start + rng.randint(1, 64)] + text[at:]
        elif op == 5 and text:
            i = rng.randrange(len(text))
            text = text[:i] + chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000)])) \
                + text[i + 1:]
        elif op == 6:
            text = text[:at] + "%x" % rng.getrandbits(rng.choice([8, 32, 48, 64])) + text[at:]
    return text[:4096]


def load_corpus(directory):
    """(text, symbols) from the symbolicate fuzz target's inputs: a perf map,
    a NUL, the text."""
    seeds = []
    for name in sorted(os.listdir(directory)) if directory else []:
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        head, _, tail = data.partition(b"\0")
        symbols = []
        for line in head.decode("utf-8", "replace").splitlines():
            fields = line.split(None, 2)
            try:
                start, size = int(fields[0], 16), int(fields[1], 16)
            except (IndexError, ValueError):
                continue
            name = fields[2] if len(fields) > 2 else "?"
            name = name.replace(MARK_OPEN, ".").replace(MARK_CLOSE, ".")
            symbols.append((start, start + max(size, 1), name))
        seeds.append((tail.decode("utf-8", "replace").replace(MARK_OPEN, "."), symbols))
    seeds.append(("  * frame #0: 0x00007f3a2c001010\n    frame #1: 0x00007f3a2c0020c8 JS:*fn\n"
                  "[0x7f3a2c001000+0x31] 7f3a2c001020\n",
                  [(0x7F3A2C001000, 0x7F3A2C0011A0, "JS:*fn"),
                   (0x7F3A2C0020C0, 0x7F3A2C002100, "Hot.work")]))
    return seeds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corpus", default=os.path.join(ROOT, "test", "fuzz", "corpus", "symbolicate"))
    p.add_argument("--jitsym")
    options = p.parse_args()

    rng = random.Random(options.seed)
    seeds = load_corpus(options.corpus)
    texts = [t for t, _ in seeds]
    deadline = time.monotonic() + options.seconds
    count, batch = 0, []
    with tempfile.TemporaryDirectory(prefix="fuzz-symbolicate-text-") as workdir:
        try:
            while time.monotonic() < deadline:
                text, symbols = rng.choice(seeds)
                text = mutate(rng, text, texts).replace(MARK_OPEN, ".").replace(MARK_CLOSE, ".")
                check_text(text, symbols)
                count += 1
                batch.append(text)
                if options.jitsym and len(batch) == 200:
                    check_against_cli(options.jitsym, batch, workdir)
                    batch = []
            if options.jitsym and batch:
                check_against_cli(options.jitsym, batch, workdir)
        except Failure as e:
            print("FAILED (seed %d): %s" % (options.seed, e))
            print("last text: %r" % text)
            print("%d passed, 1 failed" % count)
            return 1
    print("%d passed, 0 failed" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
