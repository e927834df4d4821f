"""A live Node process under LLDB, stopped in native code (uv_hrtime) called
from JIT code, for the Node test scripts.
"""
import os
import sys

import lldb


class NodeSession:
    def __init__(self, plugin, node_args, ignore_count=3000):
        """Loads `plugin` (none: without jitsym), launches node with
        `node_args` in the current directory and stops at the uv_hrtime call
        after `ignore_count` of them, once V8 has tiered the functions up."""
        self.debugger = lldb.SBDebugger.Create()
        self.debugger.SetAsync(False)
        self.interpreter = self.debugger.GetCommandInterpreter()
        if plugin:
            self.run("plugin load " + plugin)
        self.target = self.debugger.CreateTarget(os.environ.get("NODE", "/usr/bin/node"))
        self.run("process handle SIGUSR1 SIGPROF -s false -n false -p true")
        self.target.BreakpointCreateByName("uv_hrtime").SetIgnoreCount(ignore_count)
        self.process = self.target.LaunchSimple(node_args, None, os.getcwd())
        if self.process.GetState() != lldb.eStateStopped:
            print("node did not stop:", self.process.GetState())
            sys.exit(1)

    def finish(self):
        """Kills node and removes the perf map it wrote: a map left in /tmp
        would be taken for the map of a later process given the same PID."""
        pid = self.process.GetProcessID()
        self.process.Kill()
        perf_map = "/tmp/perf-%d.map" % pid
        if os.path.exists(perf_map):
            os.unlink(perf_map)

    def run(self, command):
        """Runs an LLDB command; returns its output (errors included)."""
        result = lldb.SBCommandReturnObject()
        self.interpreter.HandleCommand(command, result)
        if not result.Succeeded():
            print("command failed:", command, result.GetError())
        return (result.GetOutput() or "") + (result.GetError() or "")
