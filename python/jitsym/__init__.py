"""jitsym's LLDB commands.

    (lldb) command script import /path/to/jitsym/python/jitsym

loads the native plugin (libjitsym-lldb.so: jit-sync and its stop hook) unless
it is loaded already, and adds:

    jit-symbolicate [-m PATH]... [-j PATH]... [-d DIR] [FILE]

(a parsed command: `help jit-symbolicate` lists its options).

Nothing here reads a perf map or a jitdump: the native plugin and the jitsym
command-line tool do, and LLDB itself names the addresses.
"""

import lldb

from . import artifacts
from . import symbolicate


def __lldb_init_module(debugger, internal_dict):
    interpreter = debugger.GetCommandInterpreter()
    # Both are user commands, which CommandExists does not see.
    if interpreter.UserCommandExists("jit-symbolicate"):
        print("jitsym: already imported in this debugger")
        return
    if not interpreter.UserCommandExists("jit-sync"):
        plugin = artifacts.plugin_path()
        if plugin is None:
            print("jitsym: " + artifacts.not_found("libjitsym-lldb.so"))
        else:
            result = lldb.SBCommandReturnObject()
            interpreter.HandleCommand('plugin load "%s"' % plugin, result)
            if not result.Succeeded():
                print("jitsym: cannot load %s: %s" % (plugin, result.GetError()))
    debugger.HandleCommand(
        "command script add --parsed --overwrite --class %s.symbolicate.SymbolicateCommand "
        "jit-symbolicate" % __name__
    )
