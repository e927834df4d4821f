# The runtime matrix's program for CPython (test/scripts/runtime_matrix.py;
# -X perf, 3.13's -X perf_jit): top -> outerLoop -> middle -> leaf -> a native
# call every 64 iterations (os.getppid(): libc's getppid, which CPython does
# not call on its own). With a perf hook every Python call goes through a
# trampoline of the called code's own, which the map or jitdump names
# "py::leaf:/path/prog.py". At the first native call leaf prints CPython's own
# stack trace before making the call; the program makes the native call once
# before any of them runs. The argument is the number of iterations.
import os
import sys
import traceback

printed = False


def leaf(i):
    global printed
    if i & 63 == 0:
        if not printed:
            printed = True
            sys.stdout.write("Error: leaf\n" + "".join(traceback.format_stack()))
            sys.stdout.flush()
        os.getppid()
    return (i * 31) ^ (i >> 3)


def middle(i):
    return leaf(i) + (i & 7)


def outerLoop(n):
    s = 0
    for i in range(n):
        s += middle(i)
    return s


def top(n):
    return outerLoop(n)


os.getppid()  # once before leaf exists: the matrix may set its breakpoint here
print("result", top(int(sys.argv[1]) if len(sys.argv) > 1 else 100000))
