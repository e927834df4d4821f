// The runtime matrix's program for HotSpot (test/scripts/runtime_matrix.py),
// as prog.js is for the JavaScript runtimes: top -> outerLoop -> middle ->
// leaf -> a native call every 1024 iterations (Thread.yield(): JVM_Yield,
// libc's sched_yield). At the first native call leaf prints the JVM's own
// stack trace before making the call. middle and leaf are each one of eight
// implementations of a method, called through a megamorphic call site, so
// neither C1 nor C2 inlines them: their frames stay their own, and leaf's C2
// code is what runs once it exists. The argument is the number of iterations.
public class Prog {
  static boolean printed = false;
  static int calls = 0;

  static final Step[] leaves = {new Leaf(), new S1(), new S2(), new S3(), new S4(), new S5(),
                                new S6(), new S7()};
  static final Step[] middles = {new Middle(), new S1(), new S2(), new S3(), new S4(), new S5(),
                                 new S6(), new S7()};

  static int outerLoop(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += middles[(i >> 3) & 7].middle(i);
    return s;
  }

  static long top(int iterations) {
    long r = 0;
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < 2000; k++) {
      sb.setLength(0);
      r += sb.append("x").append(k).toString().hashCode() & 0xff;
    }
    return r + outerLoop(iterations);
  }

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200000;
    System.out.println("result " + top(iterations) + " calls " + calls);
  }
}

abstract class Step {
  int leaf(int i) { return i; }
  int middle(int i) { return i; }
}

class Leaf extends Step {
  @Override
  int leaf(int i) {
    int v = (i * 31) ^ (i >>> 3);
    if ((i & 1023) == 0) {
      if (!Prog.printed) {
        Prog.printed = true;
        new Throwable("leaf").printStackTrace(System.out);
        System.out.flush();
      }
      Thread.yield();
      Prog.calls++;
    }
    return v & 0xff;
  }
}

class Middle extends Step {
  @Override
  int middle(int i) {
    return Prog.leaves[i & 7].leaf(i) + (i & 7);
  }
}

class S1 extends Step { int leaf(int i) { return i & 1; } int middle(int i) { return i & 1; } }
class S2 extends Step { int leaf(int i) { return i & 3; } int middle(int i) { return i & 3; } }
class S3 extends Step { int leaf(int i) { return i ^ 5; } int middle(int i) { return i ^ 5; } }
class S4 extends Step { int leaf(int i) { return i | 2; } int middle(int i) { return i | 2; } }
class S5 extends Step { int leaf(int i) { return i >> 1; } int middle(int i) { return i >> 1; } }
class S6 extends Step { int leaf(int i) { return i + 7; } int middle(int i) { return i + 7; } }
class S7 extends Step { int leaf(int i) { return i * 3; } int middle(int i) { return i * 3; } }
