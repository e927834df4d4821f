// test/java/breakpoint-verified-entry.test: Leaf.leaf is called only through
// a megamorphic call site (eight implementations), i.e. through a vtable stub,
// which enters its compiled code at the verified entry point, past the
// inline-cache check at the code's first byte. The argument is the number of
// calls.
public class VirtualCalls {
  static final Step[] steps = {new Leaf(), new S1(), new S2(), new S3(), new S4(), new S5(),
                               new S6(), new S7()};

  static int loop(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += steps[i & 7].leaf(i);
    return s;
  }

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000000;
    System.out.println("result " + loop(n));
  }
}

abstract class Step {
  abstract int leaf(int i);
}

class Leaf extends Step { int leaf(int i) { return (i * 31) ^ (i >>> 3); } }
class S1 extends Step { int leaf(int i) { return i & 1; } }
class S2 extends Step { int leaf(int i) { return i & 3; } }
class S3 extends Step { int leaf(int i) { return i ^ 5; } }
class S4 extends Step { int leaf(int i) { return i | 2; } }
class S5 extends Step { int leaf(int i) { return i >> 1; } }
class S6 extends Step { int leaf(int i) { return i + 7; } }
class S7 extends Step { int leaf(int i) { return i * 3; } }
