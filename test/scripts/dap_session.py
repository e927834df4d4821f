"""A small Debug Adapter Protocol client, as an IDE is: it drives lldb-dap
through initialize, launch (with jitsym loaded by the init commands),
setFunctionBreakpoints, configurationDone, then at each stop a stackTrace and
a continue, and prints what an IDE would show: the frames' names and source
positions at each stop, and the progress events lldb-dap sent.

usage: dap_session.py LLDB_DAP PLUGIN BREAKPOINT STOPS PROGRAM [ARG...]
BREAKPOINT "pause": no breakpoint; each stop is a pause request sent a
second after the program runs (LLDB runs no stop hook there), and the stack
is asked for as soon as lldb-dap says it stopped, as an IDE does.
"""
import json
import os
import select
import shlex
import subprocess
import sys
import time

TIMEOUT = 120


class Adapter:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.seq = 0
        self.buffer = b""
        self.events = []  # every event received, in order
        # Messages read while waiting for another, kept for a later wait:
        # lldb-dap 19 answers the launch at once (before "initialized"),
        # and may send "stopped" before the launch answer is asked for;
        # lldb-dap 22 answers the launch after configurationDone.
        self.unclaimed = []

    def send(self, command, arguments=None):
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return self.seq

    def _read_message(self, deadline):
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                length = 0
                for line in self.buffer[:header_end].split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                start = header_end + 4
                if len(self.buffer) >= start + length:
                    body = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return json.loads(body)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                self.show_threads()
                sys.exit("dap_session.py: lldb-dap said nothing for %d s" % TIMEOUT)
            chunk = self.process.stdout.read1(65536)
            if not chunk:
                sys.exit("dap_session.py: lldb-dap exited")
            self.buffer += chunk

    def show_threads(self):
        """On stderr, where lldb-dap's threads wait (a hang's diagnosis)."""
        lldb = os.path.join(os.path.dirname(self.process.args[0]), "lldb")
        try:
            stacks = subprocess.run([lldb, "-b", "-p", str(self.process.pid), "-o",
                                     "thread backtrace all -c 14"], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired) as error:
            stacks = "(no stacks: %s)" % error
        sys.stderr.write("lldb-dap's threads:\n" + stacks)

    def wait(self, predicate):
        for i, message in enumerate(self.unclaimed):
            if predicate(message):
                return self.unclaimed.pop(i)
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._read_message(deadline)
            if message.get("type") == "event":
                self.events.append(message)
            if predicate(message):
                return message
            self.unclaimed.append(message)

    def request(self, command, arguments=None):
        return self.response(self.send(command, arguments), command)

    def response(self, seq, command):
        response = self.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == seq)
        if not response.get("success"):
            sys.exit("dap_session.py: %s failed: %s" % (command, response.get("message")))
        return response

    def wait_event(self, name):
        return self.wait(lambda m: m.get("type") == "event" and m.get("event") == name)


def show_stack(adapter, thread, levels=4):
    frames = adapter.request("stackTrace", {"threadId": thread, "startFrame": 0, "levels": levels})
    for i, frame in enumerate(frames["body"]["stackFrames"]):
        source = frame.get("source", {}).get("name", "")
        where = " at %s:%s" % (source, frame.get("line")) if source else ""
        print("frame %d: %s%s" % (i, frame["name"], where))


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    dap, plugin, breakpoint, stops, program, args = argv[0], argv[1], argv[2], int(argv[3]), argv[4], argv[5:]
    # In a sanitized build, lit names what starts a program that loads the
    # plugin: lldb-dap gets the sanitizer runtime.
    adapter = Adapter(shlex.split(os.environ.get("JITSYM_SANITIZED_HOST", "")) + [dap])
    adapter.request("initialize", {"clientID": "jitsym-test", "adapterID": "lldb-dap",
                                   "pathFormat": "path", "linesStartAt1": True,
                                   "columnsStartAt1": True, "supportsProgressReporting": True})
    # lldb-dap answers the launch once the configuration is done.
    launch = adapter.send("launch", {"program": program, "args": args,
                                     "initCommands": ["plugin load " + plugin]})
    adapter.wait_event("initialized")
    pause = breakpoint == "pause"
    if not pause:
        adapter.request("setFunctionBreakpoints", {"breakpoints": [{"name": breakpoint}]})
    adapter.request("configurationDone")
    adapter.response(launch, "launch")
    for stop in range(1, stops + 1):
        if pause:
            time.sleep(1)
            threads = adapter.request("threads")["body"]["threads"]
            adapter.request("pause", {"threadId": threads[0]["id"]})
        stopped = adapter.wait_event("stopped")
        thread = stopped["body"]["threadId"]
        print("stop %d: %s" % (stop, stopped["body"].get("reason")))
        show_stack(adapter, thread, 7 if pause else 4)
        if stop < stops:
            adapter.request("continue", {"threadId": thread})
    # Progress: each start and end, and the last update before an end.
    last_update = {}
    for event in adapter.events:
        body = event.get("body", {})
        if event["event"] == "progressStart":
            print("progressStart: %s: %s" % (body.get("title"), body.get("message", "")))
        elif event["event"] == "progressUpdate":
            last_update[body.get("progressId")] = body
        elif event["event"] == "progressEnd":
            update = last_update.pop(body.get("progressId"), None)
            if update:
                print("progressUpdate: %s (%s%%)" % (update.get("message"), update.get("percentage")))
            print("progressEnd")
    adapter.request("disconnect", {"terminateDebuggee": True})
    adapter.process.wait(timeout=TIMEOUT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
