"""What the Python test drivers share: a debugger of their own with jitsym's
plugin loaded, the text of its commands, and the symbols of jitsym's modules."""
import os

import lldb


class Driver:
    def __init__(self, plugin, async_mode=False):
        lldb.SBDebugger.Initialize()
        self.debugger = lldb.SBDebugger.Create(False)
        self.debugger.SetAsync(async_mode)
        self.interpreter = self.debugger.GetCommandInterpreter()
        self.run("plugin load " + plugin)

    def run(self, command):
        """The command's output and errors, as one text."""
        result = lldb.SBCommandReturnObject()
        self.interpreter.HandleCommand(command, result)
        return (result.GetOutput() or "") + (result.GetError() or "")


COMPILE_WATCH = "jitsym_compile_watch"


def user_breakpoint_thread(process):
    """The thread stopped at a breakpoint of the user's (not jitsym's compile
    watch, nor one of LLDB's own), if any."""
    for thread in process:
        if thread.GetStopReason() != lldb.eStopReasonBreakpoint:
            continue
        breakpoint_id = thread.GetStopReasonDataAtIndex(0)
        if breakpoint_id >= 1 << 31:  # LLDB's own (negative) breakpoints
            continue
        bp = process.GetTarget().FindBreakpointByID(breakpoint_id)
        if bp.IsValid() and not bp.MatchesName(COMPILE_WATCH):
            return thread
    return None


def continue_past_compile_stops(process):
    """While the process is stopped for no breakpoint of the user's (a compile
    stop LLDB 22 shows when another thread stops at the same moment: see
    DESIGN.md), continues. Returns how many such stops there were; the process
    is left stopped at a user's breakpoint (selected) or not stopped."""
    shown = 0
    while process.GetState() == lldb.eStateStopped:
        thread = user_breakpoint_thread(process)
        if thread:
            process.SetSelectedThread(thread)
            break
        shown += 1
        process.Continue()
    return shown


def module_symbols(module, target):
    """(name, address, size) of the module's symbols, less the aliases jitsym
    adds under the names users type: an alias has the address and the size of
    the symbol before it."""
    symbols = []
    for symbol in module:
        start = symbol.GetStartAddress().GetLoadAddress(target)
        end = symbol.GetEndAddress().GetLoadAddress(target)
        if symbols and symbols[-1][1:] == (start, end - start):
            continue
        symbols.append((symbol.GetName(), start, end - start))
    return symbols


def jit_symbols(target):
    """(name, address, size) of every symbol of jitsym's modules: those whose
    files lie in $JITSYM_DIR (other sessions' modules lie there too, but not
    in this target)."""
    private = os.environ["JITSYM_DIR"]
    symbols = []
    for module in target.module_iter():
        if module.GetFileSpec().fullpath.startswith(private):
            symbols.extend(module_symbols(module, target))
    return symbols
