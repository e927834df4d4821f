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
