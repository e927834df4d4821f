// The runtime matrix's program for Mono (test/scripts/runtime_matrix.py,
// --jitmap): top -> outerLoop -> middle -> leaf -> a native call every 64
// iterations (a P/Invoke of libc's getppid, which Mono does not call on its
// own). At the first native call leaf prints Mono's own stack trace before
// making the call. Mono compiles each method once, at its first call. The
// argument is the number of iterations.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

static class Prog {
    [DllImport("libc", EntryPoint = "getppid")]
    static extern int NativeCall();

    static bool printed;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int leaf(int i) {
        if ((i & 63) == 0) {
            if (!printed) {
                printed = true;
                Console.Out.Write("Error: leaf\n" + Environment.StackTrace + "\n");
                Console.Out.Flush();
            }
            NativeCall();
        }
        return (i * 31) ^ (i >> 3);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int middle(int i) { return leaf(i) + (i & 7); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long outerLoop(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += middle(i);
        return s;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long top(int n) { return outerLoop(n); }

    static void Main(string[] args) {
        Console.WriteLine("result " + top(args.Length > 0 ? int.Parse(args[0]) : 100000));
    }
}
