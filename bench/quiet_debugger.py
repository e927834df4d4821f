"""An LLDB debugger in this process, synchronous, its messages (and the
plugin's) thrown away: the benchmarks' driver. Returns the debugger and a
function that runs a command and returns its output and errors."""
import os

import lldb


def quiet_debugger():
    debugger = lldb.SBDebugger.Create(False)
    debugger.SetAsync(False)
    quiet = open(os.devnull, "w")  # LLDB's and the plugin's messages
    debugger.SetOutputFileHandle(quiet, True)
    debugger.SetErrorFileHandle(quiet, True)
    interpreter = debugger.GetCommandInterpreter()
    result = lldb.SBCommandReturnObject()

    def run(command):
        interpreter.HandleCommand(command, result)
        return (result.GetOutput() or "") + (result.GetError() or "")

    return debugger, run
