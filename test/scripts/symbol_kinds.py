"""An LLDB command for tests: `symbol-kinds PREFIX` prints the type LLDB gives
each symbol of the selected target whose name starts with PREFIX (code, data,
...), one line per distinct type: what `image lookup` does not show.

usage (in LLDB): command script import symbol_kinds.py; symbol-kinds PREFIX
"""
import lldb

KINDS = {lldb.eSymbolTypeCode: "code", lldb.eSymbolTypeData: "data",
         lldb.eSymbolTypeTrampoline: "trampoline", lldb.eSymbolTypeResolver: "resolver"}


def symbol_kinds(debugger, command, exe_ctx, result, internal_dict):
    prefix = command.strip()
    counts = {}
    for module in exe_ctx.GetTarget().module_iter():
        for symbol in module:
            if (symbol.GetName() or "").startswith(prefix):
                kind = KINDS.get(symbol.GetType(), str(symbol.GetType()))
                counts[kind] = counts.get(kind, 0) + 1
    for kind in sorted(counts):
        result.AppendMessage("%s: %d %s symbol(s)" % (prefix, counts[kind], kind))


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand("command script add -f symbol_kinds.symbol_kinds symbol-kinds")
