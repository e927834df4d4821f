// A Java program to debug with jitsym: HotSpot compiles its hot methods, which
// call down into native code (probe.c) now and then; the last call stops in
// jitdemo_stop, where LLDB shows the JIT-compiled Java frames above the native
// ones. See README.md.
public class JitDemo {
  static {
    System.loadLibrary("jitdemo");
  }

  // probe.c: returns `phase`; phase 3 goes through jitdemo_stop (the breakpoint).
  static native int probe(int phase);

  static long mix(long sum, int i) {
    return (sum * 31 + i) ^ (sum >>> 7);
  }

  static long work(int n, int phase) {
    long sum = 0;
    for (int i = 0; i < n; i++)
      sum = mix(sum, i);
    if (phase != 0)
      sum += probe(phase);
    return sum;
  }

  // Probes once every 1000 rounds, so the compiled code has the call in it.
  static long phase(int rounds, int phase) {
    long sum = 0;
    for (int r = 0; r < rounds; r++)
      sum += work(1000, r % 1000 == 999 ? phase : 0);
    return sum;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
    long sum = 0;
    for (int p = 0; p < 10; p++)
      sum += phase(rounds, 1); // warm: HotSpot compiles mix, work and phase
    sum += phase(1000, 3);     // its one probe stops in jitdemo_stop
    System.out.println("sum " + sum);
  }
}
