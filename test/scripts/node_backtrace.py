"""Stops a live Node process (perf map on) inside native code called from JIT
code, with the jitsym plugin loaded, and reports two things FileCheck can pin:
the named JS frames, and whether LLDB's frame PCs through the JIT frames equal
the frame-pointer chain read straight from process memory (the unwind Node's
JIT code is built for; any bogus frame breaks the equality).

usage: node_backtrace.py PLUGIN APP.js [--no-plugin]
"""
import sys

import lldb

from node_session import NodeSession

plugin, app = sys.argv[1], sys.argv[2]
use_plugin = "--no-plugin" not in sys.argv
session = NodeSession(plugin if use_plugin else None,
                      ["--perf-basic-prof", "--interpreted-frames-native-stack", app, "20000"])
target, process = session.target, session.process
# A second stop unwinds from scratch with whatever symbols exist by then.
process.Continue()
thread = process.GetSelectedThread()
frames = [thread.GetFrameAtIndex(i) for i in range(min(thread.GetNumFrames(), 40))]

for frame in frames:
    symbol = frame.GetSymbol()
    name = symbol.GetName() if symbol.IsValid() else ""
    module = frame.GetModule().GetFileSpec().GetFilename() or ""
    if name.startswith("JS:"):
        print("js-frame: %s`%s" % (module, name))

# Frame-pointer oracle: from the first frame whose caller is JIT code, follow
# [rbp] links and compare each return address with LLDB's next frame PC.
def read_u64(address):
    error = lldb.SBError()
    value = process.ReadUnsignedFromMemory(address, 8, error)
    return value if error.Success() else None

def is_node_code(pc):
    module = target.ResolveLoadAddress(pc).GetModule()
    name = module.GetFileSpec().GetFilename() if module.IsValid() else None
    return name not in (None, "jit")

first = next(i for i, f in enumerate(frames) if not is_node_code(f.GetPC()))
rbp = frames[first].FindRegister("rbp").GetValueAsUnsigned()
compared = mismatches = 0
for frame in frames[first + 1:]:
    caller_pc = read_u64(rbp + 8)
    if caller_pc != frame.GetPC():
        mismatches += 1
        print("mismatch: lldb 0x%x, frame pointers 0x%x" % (frame.GetPC(), caller_pc or 0))
        break
    compared += 1
    if is_node_code(frame.GetPC()):
        break  # back in node's own code (JSEntry), which has its own CFI
    rbp = read_u64(rbp)
print("jit frames compared with the frame-pointer chain: %d, mismatches: %d"
      % (compared, mismatches))
session.finish()
