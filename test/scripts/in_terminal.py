#!/usr/bin/env python3
"""Runs a command with a terminal (a pseudo-terminal) as its standard input and
output, types the contents of a file into it followed by Ctrl-D, and prints
what the command wrote, for tests of what a command does when a person is at
the keyboard (jit-symbolicate reads a terminal, never a pipe).

  in_terminal.py TYPED_FILE COMMAND [ARG...]
Exits with the command's status; gives up after 60 seconds.
"""

import os
import pty
import select
import subprocess
import sys
import time


def main():
    typed_path, command = sys.argv[1], sys.argv[2:]
    with open(typed_path, "rb") as f:
        typed = f.read()
    master, slave = pty.openpty()
    child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    # Canonical mode: a line at a time, and Ctrl-D at the start of a line is
    # the end of the input.
    os.write(master, typed if typed.endswith(b"\n") else typed + b"\n")
    os.write(master, b"\x04")
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        elif child.poll() is not None:
            break
    else:
        child.kill()
        sys.stderr.write("in_terminal.py: %s did not finish in 60 s\n" % command[0])
    status = child.wait()
    sys.stdout.write(output.decode(errors="replace").replace("\r\n", "\n"))
    return status


if __name__ == "__main__":
    sys.exit(main())
