"""Prints the LLDB progress events (what the command line's status line shows)
a `jit-sync` sends, as a listener on the debugger receives them. LLDB runs
PROGRAM to BREAKPOINT with automatic sync off, then runs `jit-sync` once.

usage: progress_events.py PLUGIN BREAKPOINT PROGRAM [ARG...]
"""
import sys

import lldb


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    plugin, breakpoint, program, args = argv[0], argv[1], argv[2], argv[3:]
    lldb.SBDebugger.Initialize()
    debugger = lldb.SBDebugger.Create(False)
    debugger.SetAsync(False)
    listener = lldb.SBListener("jitsym-progress")
    # Progress from SB clients such as jitsym comes as "external" progress.
    debugger.GetBroadcaster().AddListener(
        listener, lldb.SBDebugger.eBroadcastBitProgress | lldb.SBDebugger.eBroadcastBitExternalProgress)
    interpreter = debugger.GetCommandInterpreter()
    result = lldb.SBCommandReturnObject()

    def run(command):
        interpreter.HandleCommand(command, result)
        print("(lldb) %s" % command)
        print((result.GetOutput() or "") + (result.GetError() or ""), end="")

    run("plugin load " + plugin)
    run("jit-sync --auto off")
    target = debugger.CreateTarget(program)
    target.BreakpointCreateByName(breakpoint)
    process = target.LaunchSimple(args, None, None)
    if process.GetState() != lldb.eStateStopped:
        sys.exit("progress_events.py: the process did not stop")
    # Progress events of LLDB's own work so far (loading modules) are not ours.
    event = lldb.SBEvent()
    while listener.GetNextEvent(event):
        pass
    run("jit-sync")
    updates = 0
    while listener.GetNextEvent(event):
        data = lldb.SBDebugger.GetProgressDataFromEvent(event)
        title = data.GetValueForKey("title").GetStringValue(1000)
        if not title.startswith("jit-sync"):
            continue
        completed = data.GetValueForKey("completed").GetIntegerValue()
        total = data.GetValueForKey("total").GetIntegerValue()
        message = data.GetValueForKey("message").GetStringValue(1000)
        if completed == 0:
            print("start: %s (total %d)" % (title, total))
        elif completed >= total:
            print("after %d updates: %s" % (updates, message))
            print("end: %s" % title)
        else:
            updates += 1
    process.Kill()
    lldb.SBDebugger.Destroy(debugger)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
