"""Stops a live Node process inside TurboFan code where only V8's own unwind
table describes the frame right, and reports what FileCheck pins: which unwind
plans LLDB uses there, and whether frame #1 is the true caller.

Two stops in JS:*sumSquares (unwind.js calls it with more arguments than it
declares, so each return drops them after `pop rbp`):
  - its first instruction, before the frame is built;
  - the instruction an epilogue jumps to to drop the extra arguments
    (`pop rbp; cmp rcx, N; jg X`, at X): the frame is gone but the code lies
    after a `ret`, and LLDB's own instruction analysis then takes the frame
    to be there again (CFA = rbp+16), skipping the real caller.
At both, the return address is at [rsp]: the true caller's PC, an oracle
read from process memory that LLDB's frame #1 must equal.

usage: node_unwind.py PLUGIN UNWIND.js [--perf-map]   (run in a scratch
directory; --perf-map: names from --perf-basic-prof only, no unwind tables)
"""
import sys

import lldb

from node_session import NodeSession

plugin, app = sys.argv[1], sys.argv[2]
source = "--perf-basic-prof" if "--perf-map" in sys.argv else "--perf-prof"
# No inlining: once the script's loop is optimized (OSR), sumSquares would be
# inlined into it and its own code never run again.
session = NodeSession(plugin, [source, "--no-turbo-inlining", app], ignore_count=2000)
target, process = session.target, session.process
target.DeleteAllBreakpoints()


def optimized_code(prefix):
    """Every TurboFan code whose name starts with `prefix`."""
    found = []
    for module in target.module_iter():
        if module.GetFileSpec().GetFilename() == "jit":
            found += [s for s in module if (s.GetName() or "").startswith(prefix)]
    return found


def drop_argument_targets(symbol):
    """X of every `pop rbp; cmp rcx, N; jg X` epilogue in the code."""
    code = list(symbol.GetInstructions(target))
    targets = []
    for i in range(len(code) - 2):
        pop, cmp, jump = code[i], code[i + 1], code[i + 2]
        if (pop.GetMnemonic(target) == "popq" and pop.GetOperands(target) == "%rbp"
                and cmp.GetMnemonic(target) == "cmpq"
                and cmp.GetOperands(target).endswith("%rcx")
                and jump.GetMnemonic(target) == "jg"):
            targets.append(int(jump.GetOperands(target).split()[0], 16))
    return targets


def read_u64(address):
    error = lldb.SBError()
    value = process.ReadUnsignedFromMemory(address, 8, error)
    return value if error.Success() else None


def report_stop(what):
    thread = process.GetSelectedThread()
    frame0, frame1 = thread.GetFrameAtIndex(0), thread.GetFrameAtIndex(1)
    start = frame0.GetSymbol().GetStartAddress().GetLoadAddress(target)
    print("%s: frame #0 %s + %d" % (what, frame0.GetSymbol().GetName(), frame0.GetPC() - start))
    caller = read_u64(frame0.FindRegister("rsp").GetValueAsUnsigned())
    print("%s: frame #1 %s, the caller: %s"
          % (what, frame1.GetSymbol().GetName(),
             "yes" if frame1.GetPC() == caller else "no (0x%x, not 0x%x)"
             % (frame1.GetPC(), caller or 0)))
    plans = session.run("image show-unwind -a 0x%x" % frame0.GetPC())
    for line in plans.splitlines():
        if "UnwindPlan is '" in line:
            print("%s: %s" % (what, line))


def run_to_stop(what):
    process.Continue()
    if process.GetState() != lldb.eStateStopped:
        print("%s: node did not stop (state %d)" % (what, process.GetState()))
        sys.exit(1)


# Stop at the entry of whichever copy of the code runs (V8 may have compiled
# more than one; older ones are no longer called).
entries = [target.BreakpointCreateByAddress(code.GetStartAddress().GetLoadAddress(target))
           for code in optimized_code("JS:*sumSquares ")]
if not entries:
    print("no TurboFan code for sumSquares")
    sys.exit(1)
run_to_stop("entry")
code = process.GetSelectedThread().GetFrameAtIndex(0).GetSymbol()
targets = drop_argument_targets(code)
print("epilogues that drop arguments: %d" % len(targets))
report_stop("entry")
for stop in entries:
    stop.SetEnabled(False)
for address in targets:
    target.BreakpointCreateByAddress(address)
run_to_stop("dropping arguments")
report_stop("dropping arguments")
session.finish()
