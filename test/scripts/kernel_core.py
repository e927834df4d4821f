"""Runs a program until it crashes and keeps the core the kernel writes.

    kernel_core.py OUT.core PROGRAM [ARGS...]

Core dumps are enabled for the program only (RLIMIT_CORE), in a scratch
working directory; the system's core_pattern must be a plain file name (lit
checks it before running tests that need this). Prints the program's output,
and the PID it had on the last line ("pid N").
"""

import glob
import os
import resource
import shutil
import subprocess
import sys
import tempfile


def main():
    out, command = sys.argv[1], sys.argv[2:]
    scratch = tempfile.mkdtemp(prefix="jitsym-core-")
    try:
        def enable_cores():
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)

        run = subprocess.run(command, cwd=scratch, preexec_fn=enable_cores,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(run.stdout)
        if run.returncode >= 0:
            sys.exit("kernel_core.py: the program exited with %d, it did not crash"
                     % run.returncode)
        cores = glob.glob(os.path.join(scratch, "core*"))
        if not cores:
            sys.exit("kernel_core.py: no core in %s (core_pattern: %s)" % (
                scratch, open("/proc/sys/kernel/core_pattern").read().strip()))
        shutil.move(cores[0], out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
