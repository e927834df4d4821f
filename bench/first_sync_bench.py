"""The first jit-sync beside LLDB's own fastest path for the same symbols.

For N symbols spread over 256 MiB of JIT memory (tinyjit --bulk N), in
alternating rounds, each in an LLDB process of its own:
  jitsym:    `jit-sync` of the process's perf map (what a user's first stop costs);
  reference: the same symbols in the .symtab of one ELF object (written here,
             beforehand), added to the same kind of target with SBTarget.AddModule
             and SetModuleLoadAddress, its symbols read (GetNumSymbols): what LLDB
             itself needs to know these symbols.
Prints each round's wall time and RSS growth, and the ratios of the medians
(issue 22's goals: <= 2x the reference's time and memory; 1M under 5 s).

usage: first_sync_bench.py BUILD_DIR [N ...] [--rounds R]
       (default: 100000 1000000, 3 rounds; LLDB_DEBUGSERVER_PATH must be set)
"""
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

SPAN = 256 << 20  # the JIT memory the symbols spread over


def rss_kb():
    with open("/proc/self/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0])


def write_symtab_elf(path, symbols):
    """An ELF64 x86-64 shared object: one NOBITS .text over the symbols, and a
    .symtab with each as an STT_FUNC of its size."""
    start = min(a for a, _, _ in symbols) & ~0xFFF
    end = max(a + s for a, s, _ in symbols)
    strtab = bytearray(b"\0")
    syms = bytearray(b"\0" * 24)
    for address, size, name in symbols:
        offset = len(strtab)
        strtab += name.encode() + b"\0"
        # st_name, st_info (GLOBAL FUNC), st_other, st_shndx (.text = 1), st_value, st_size
        syms += struct.pack("<IBBHQQ", offset, (1 << 4) | 2, 0, 1, address, size)
    shstrtab = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    phoff = 64
    body = phoff + 56
    symoff = body
    stroff = symoff + len(syms)
    shstroff = stroff + len(strtab)
    shoff = (shstroff + len(shstrtab) + 7) & ~7
    header = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, 3, 62, 1,
                         0, phoff, shoff, 0, 64, 56, 1, 64, 5, 4)
    # PT_LOAD, R+X, nothing from the file: the code is the process's.
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, start, start, 0, end - start, 0x1000)
    sections = [
        struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        struct.pack("<IIQQQQIIQQ", 1, 8, 6, start, body, end - start, 0, 0, 16, 0),
        struct.pack("<IIQQQQIIQQ", 7, 2, 0, 0, symoff, len(syms), 3, 1, 8, 24),
        struct.pack("<IIQQQQIIQQ", 15, 3, 0, 0, stroff, len(strtab), 0, 0, 1, 0),
        struct.pack("<IIQQQQIIQQ", 23, 3, 0, 0, shstroff, len(shstrtab), 0, 0, 1, 0),
    ]
    with open(path, "wb") as f:
        f.write(header + phdr + syms + strtab + shstrtab)
        f.write(b"\0" * (shoff - shstroff - len(shstrtab)))
        f.write(b"".join(sections))


def one_round(build, work, n, mode):
    """Runs in a process of its own: prints 'ms kb'."""
    import lldb
    map_path = os.path.join(work, "bench-%d.map" % n)
    debugger = lldb.SBDebugger.Create()
    debugger.SetAsync(False)
    interp = debugger.GetCommandInterpreter()
    result = lldb.SBCommandReturnObject()
    interp.HandleCommand("plugin load " + os.path.join(build, "lib", "libjitsym-lldb.so"), result)
    interp.HandleCommand("jit-sync --auto off", result)
    target = debugger.CreateTarget(os.path.join(build, "bin", "tinyjit"))
    target.BreakpointCreateByName("jit_probe")
    process = target.LaunchSimple(["--bulk", str(n), "--bulk-stride", str(SPAN // n),
                                   "--phases", "1", "--map", map_path], None, work)
    assert process.GetState() == lldb.eStateStopped, process.GetState()
    before = rss_kb()
    start = time.perf_counter()
    if mode == "jitsym":
        interp.HandleCommand("jit-sync --map " + map_path, result)
        assert result.Succeeded() and "%d symbols" % (n + 2) in result.GetOutput(), \
            result.GetOutput() + result.GetError()
    else:
        elf = os.path.join(work, "bench-%d.so" % n)
        module = target.AddModule(elf, None, None)
        target.SetModuleLoadAddress(module, 0)
        assert module.GetNumSymbols() >= n, module.GetNumSymbols()
    elapsed = (time.perf_counter() - start) * 1000
    grown = rss_kb() - before
    process.Kill()
    lldb.SBDebugger.Destroy(debugger)
    print("%.1f %d" % (elapsed, grown))


def main():
    args = [a for a in sys.argv[1:]]
    rounds = 3
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    build = os.path.abspath(args[0])
    sizes = [int(a) for a in args[1:]] or [100000, 1000000]
    work = tempfile.mkdtemp(prefix="jitsym-first-sync-bench-")
    # The plugin's files where it puts them by default: in memory
    # ($XDG_RUNTIME_DIR, else /dev/shm), not on this disk.
    memory = "/dev/shm" if os.path.isdir("/dev/shm") else None
    private = tempfile.mkdtemp(prefix="jitsym-first-sync-bench-", dir=memory)
    os.environ.setdefault("JITSYM_DIR", private)
    try:
        for n in sizes:
            # The reference's object holds what the map will: tinyjit's bulk
            # functions, placed as tinyjit places them. A dry run writes the map.
            probe = os.path.join(work, "probe.map")
            # Without ASLR, as LLDB launches it: the same addresses.
            subprocess.run(["setarch", "x86_64", "-R", os.path.join(build, "bin", "tinyjit"), "--bulk", str(n),
                            "--bulk-stride", str(SPAN // n), "--phases", "1", "--map", probe],
                           stdout=subprocess.DEVNULL, check=True)
            symbols = []
            with open(probe) as f:
                for line in f:
                    address, size, name = line.rstrip("\n").split(" ", 2)
                    symbols.append((int(address, 16), int(size, 16), name))
            os.remove(probe)
            write_symtab_elf(os.path.join(work, "bench-%d.so" % n), symbols)
            times = {"jitsym": [], "reference": []}
            memory = {"jitsym": [], "reference": []}
            for r in range(rounds):
                for mode in ("reference", "jitsym") if r % 2 else ("jitsym", "reference"):
                    out = subprocess.run([sys.executable, __file__, "--round", build, work,
                                          str(n), mode], capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit("round failed: " + out.stdout + out.stderr)
                    ms, kb = out.stdout.split()
                    times[mode].append(float(ms))
                    memory[mode].append(int(kb) // 1024)
                    print("%7d symbols, %-9s %8.1f ms, RSS +%d MB" % (n, mode, float(ms),
                                                                     int(kb) // 1024))
            jt, rt = statistics.median(times["jitsym"]), statistics.median(times["reference"])
            jm, rm = statistics.median(memory["jitsym"]), statistics.median(memory["reference"])
            print("%7d symbols: first jit-sync %.0f ms, LLDB's .symtab load %.0f ms: %.2fx; "
                  "RSS +%d MB against +%d MB: %.2fx" % (n, jt, rt, jt / rt, jm, rm,
                                                         jm / max(rm, 1)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--round":
        one_round(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        main()
