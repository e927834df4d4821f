"""A JVM with jitsym's agent under LLDB with the plugin: sets a pending
breakpoint by a Java method's name before launch and runs until it stops
there. A compile stop LLDB shows although the plugin resumed it (when a
library loads at the same moment; see DESIGN.md) is continued and counted.
Prints what FileCheck pins, then kills the JVM.

usage: java_breakpoint.py PLUGIN [-o LLDB_COMMAND]... METHOD JAVA_ARG...
  -o  a command run after `target create` (%lldb_java_env: the sanitizer's
      environment for the JVM in a sanitized build)
"""
import re
import sys

from lldb_driver import Driver, continue_past_compile_stops


def main():
    plugin, rest = sys.argv[1], sys.argv[2:]
    commands = []
    while len(rest) >= 2 and rest[0] == "-o":
        commands.append(rest[1])
        rest = rest[2:]
    method, java_args = rest[0], rest[1:]
    session = Driver(plugin)
    session.run("target create java")
    for command in commands:
        session.run(command)
    print(session.run("breakpoint set -n " + method).strip())
    session.run("process launch -- " + " ".join(java_args))
    process = session.debugger.GetSelectedTarget().GetProcess()
    print("compile stops shown and continued: %d" % continue_past_compile_stops(process))
    for command in ["bt 1", "breakpoint list 1"]:
        print("(lldb) " + command)
        print(session.run(command).strip())
    # What waiting cost: the agent calls the hook (a stop) only for methods
    # whose names may resolve the breakpoint, of all it announced.
    status = session.run("jit-sync --status")
    stops = re.search(r"(\d+) compile stop\(s\) so far", status)
    loads = re.search(r"read: (\d+) code loads", status)
    print("compile stops: %s of %s code loads" % (stops.group(1) if stops else "?",
                                                 loads.group(1) if loads else "?"))
    process.Kill()


if __name__ == "__main__":
    main()
