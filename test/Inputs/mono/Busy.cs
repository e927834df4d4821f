// A managed call chain into native code: Main -> Top -> Mid -> Leaf -> a
// P/Invoke of libc's getppid, where the tests stop. Mono's JIT compiles each
// method on its first call and, with --jitmap, fprintf's a line for it into
// /tmp/perf-PID.map through a stdio FILE it flushes only when it is full.
// usage: mono --jitmap Busy.exe ROUNDS [start]   (start: print first)
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

static class Busy {
    [DllImport("libc", EntryPoint = "getppid")]
    static extern int NativeProbe();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Leaf(int n) { return NativeProbe() > 0 ? n + 1 : n; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Mid(int n) { return Leaf(n) * 2; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Top(int n) { return Mid(n) + 3; }

    static void Main(string[] args) {
        // Console's first use compiles a hundred methods: the map's FILE
        // fills and is flushed, most likely in the middle of a line.
        if (args.Length > 1)
            Console.WriteLine("start");
        int rounds = args.Length > 0 ? int.Parse(args[0]) : 3;
        long total = 0;
        for (int i = 0; i < rounds; i++)
            total += Top(i);
        Console.WriteLine("total " + total);
    }
}
