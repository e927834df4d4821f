"""Debugs the example JIT (tinyjit) with jitsym's plugin and a perf map this
script writes into the JIT's own anonymous memory, then checks what LLDB holds:
every symbol of the map in a JIT module, at its address, with its name.

usage: region_session.py SCENARIO PLUGIN TINYJIT

scenarios:
  page-multiple  one window whose delta JSON symbol file would be 16 KiB
                 exactly, a size LLDB misreads (it takes the mapped file's
                 length with strlen): jitsym must write another size, and LLDB
                 load it
  many-windows   tinyjit --bulk 100000 spread over 256 MiB (256 windows): the
                 first sync at the stop must give LLDB every symbol
  symtab-delta   a module made at one sync (its symbols in its object's
                 .symtab) and symbols added to it at the next (a JSON delta):
                 both kinds resolve by address, by name and as breakpoints,
                 and the module stays the same one
  refused-region two regions in one window change at one sync and one of them
                 cannot be given to LLDB (a file stands where its directory
                 goes): the other is, the refusal is said once, and the next
                 sync after the cause is gone gives LLDB the rest
"""
import json
import os
import random
import shutil
import sys
import tempfile

import lldb
from lldb_driver import Driver, jit_symbols

scenario, plugin, tinyjit = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="jitsym-region-session-")

driver = Driver(plugin)
debugger, run = driver.debugger, driver.run


def check(expected, target):
    """Every (address, size, name) of `expected` is in LLDB: listed in a JIT
    module, and found by address."""
    held = {address: (name, size) for name, address, size in jit_symbols(target)}
    missing = [e for e in expected if held.get(e[0]) != (e[2], e[1])]
    print("map: %d symbols; in JIT modules: %d; missing: %d" %
          (len(expected), len(held), len(missing)))
    for address, size, name in missing[:5]:
        print("  missing 0x%x %s (LLDB has %r)" % (address, name[:40], held.get(address)))
    sample = random.Random(7).sample(expected, min(30, len(expected)))
    named = 0
    for address, size, name in sample:
        symbol = target.ResolveLoadAddress(address + size // 2).GetSymbol()
        named += symbol.IsValid() and symbol.GetName() == name
    print("sampled addresses named: %d of %d" % (named, len(sample)))


def window_json_size(triple, symbols):
    """The size of the JSON symbol file jitsym renders for `symbols` added to a
    module if it wrote it as is (nlohmann::json, indent 1)."""
    doc = {"triple": triple, "uuid": "0" * 36, "type": "jit",
           "symbols": [{"name": n, "type": "code", "address": a, "size": s}
                       for a, s, n in symbols]}
    return len(json.dumps(doc, indent=1)) + 1


def launch_split_runs():
    """tinyjit --split-runs stopped at its first probe: its target, process, and
    the aligned 1 MiB block its first run starts (the second run is at +0x2000)."""
    target = debugger.CreateTarget(tinyjit)
    target.BreakpointCreateByName("jit_probe")
    process = target.LaunchSimple(["--split-runs", "--phases", "1", "--map",
                                   os.path.join(work, "tinyjit.map")], None, work)
    base = process.GetSelectedThread().GetFrameAtIndex(1).GetPC() & ~0xFFFFF
    return target, process, base


def write_map(path, symbols, mode="w"):
    with open(path, mode) as out:
        for address, size, name in symbols:
            out.write("%x %x %s\n" % (address, size, name))


if scenario == "page-multiple":
    target, process, base = launch_split_runs()
    symbols = [(base + 0x3000 + i * 0x40, 0x40, "fn_%03d" % i) for i in range(150)]
    extra = 16384 - window_json_size(target.GetTriple(), symbols)
    assert 0 < extra < 4000, extra
    symbols[0] = (symbols[0][0], 0x40, "fn_000" + "x" * extra)
    print("JSON as rendered plainly: %d bytes" % window_json_size(target.GetTriple(), symbols))
    # A first sync makes the region's module (its symbols in the object's
    # .symtab); the 150 symbols appended after it go to LLDB as a JSON delta.
    seed = (base + 0x2f80, 0x40, "seed")
    map_path = os.path.join(work, "page-multiple.map")
    write_map(map_path, [seed])
    run("jit-sync --map " + map_path)
    write_map(map_path, symbols, "a")
    print(run("jit-sync --map " + map_path).strip())
    # Beside this target's JIT modules (other sessions share JITSYM_DIR).
    process_dirs = {os.path.dirname(m.GetFileSpec().GetDirectory())
                    for m in target.module_iter()
                    if m.GetFileSpec().fullpath.startswith(os.environ["JITSYM_DIR"])}
    written = [os.path.join(d, region, name) for d in process_dirs
               for region in os.listdir(d) for name in os.listdir(os.path.join(d, region))
               if name.startswith("jit.d") and name.endswith(".json")]
    print("JSON written: %s bytes" % sorted(os.path.getsize(f) for f in written))
    symbols.append(seed)
    check(symbols, target)
elif scenario == "symtab-delta":
    target, process, base = launch_split_runs()
    map_path = os.path.join(work, "symtab-delta.map")
    made = [(base + 0x3000 + i * 0x40, 0x40, "made_%d" % i) for i in range(3)]
    later = [(base + 0x3400 + i * 0x40, 0x40, "later_%d" % i) for i in range(3)]
    write_map(map_path, made)
    print(run("jit-sync --map " + map_path).split(",")[0])
    module = target.ResolveLoadAddress(made[0][0]).GetModule()
    uuid = module.GetUUIDString()
    write_map(map_path, later, "a")
    print(run("jit-sync --map " + map_path).split(",")[0])
    print("same module after the delta:",
          target.ResolveLoadAddress(later[0][0]).GetModule().GetUUIDString() == uuid)
    check(made + later, target)
    for address, size, name in (made[1], later[1]):
        found = target.FindSymbols(name)
        addresses = [found.GetContextAtIndex(i).GetSymbol().GetStartAddress().GetLoadAddress(target)
                     for i in range(found.GetSize())]
        breakpoint = target.BreakpointCreateByName(name)
        locations = [breakpoint.GetLocationAtIndex(i).GetLoadAddress()
                     for i in range(breakpoint.GetNumLocations())]
        print("%s: by name %s, breakpoint at %s" % (
            name, "found at its address" if addresses == [address] else addresses,
            "its address" if locations == [address] else locations))
elif scenario == "refused-region":
    target, process, base = launch_split_runs()
    map_path = os.path.join(work, "refused.map")
    first_run = [(base + 0x800 + i * 0x40, 0x40, "first_%d" % i) for i in range(3)]
    second_run = [(base + 0x3000 + i * 0x40, 0x40, "second_%d" % i) for i in range(3)]

    write_map(map_path, first_run[:1])
    print(run("jit-sync --map " + map_path).split(",")[0])
    process_dir = os.path.dirname(next(
        m.GetFileSpec().GetDirectory() for m in target.module_iter()
        if m.GetFileSpec().fullpath.startswith(os.environ["JITSYM_DIR"])))
    blocker = os.path.join(process_dir, "w%x-g0" % (base + 0x2000))
    open(blocker, "w").close()
    write_map(map_path, first_run + second_run)
    for attempt in range(2):
        print("sync %d:" % attempt)
        for line in run("jit-sync").splitlines():
            print("  " + line.replace("%x" % (base >> 20), "W"))
    check(first_run + second_run, target)
    os.unlink(blocker)
    print("sync after the cause is gone: " + run("jit-sync").split(",")[0])
    check(first_run + second_run, target)
elif scenario == "many-windows":
    target = debugger.CreateTarget(tinyjit)
    target.BreakpointCreateByName("jit_probe")
    map_path = os.path.join(work, "bulk.map")
    # 100,000 functions 2684 bytes apart: 256 MiB, 256 windows.
    process = target.LaunchSimple(["--bulk", "100000", "--bulk-stride", "2684", "--phases",
                                   "1", "--map", map_path], None, work)
    # The first sync of the session: a script's launch runs no stop hook.
    print(run("jit-sync --map " + map_path).split(",")[0])
    expected = []
    with open(map_path) as f:
        for line in f:
            address, size, name = line.rstrip("\n").split(" ", 2)
            expected.append((int(address, 16), int(size, 16), name))
    check(expected, target)
    status = run("jit-sync --status")
    print([l for l in status.splitlines() if l.startswith("regions:")][0])
process.Kill()
lldb.SBDebugger.Destroy(debugger)
shutil.rmtree(work)
