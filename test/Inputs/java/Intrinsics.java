import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodHandles.Lookup;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

// Calls through method handles of many erased shapes (static, virtual,
// special, interface; int, long, double, Object, several arguments), lambdas
// and a VarHandle, so that HotSpot compiles its method-handle intrinsics
// (MethodHandle.invokeBasic, linkToStatic, linkToVirtual, linkToSpecial,
// linkToInterface: one per erased signature) beside the callers. args: READY
// STOP. Writes READY once warm, exits when STOP appears (or after 120 s).
public class Intrinsics {
  interface Shape { double area(double scale); }

  static final class Square implements Shape {
    final double side;
    Square(double side) { this.side = side; }
    public double area(double scale) { return side * side * scale; }
  }

  static class Base {
    int value = 3;
    long twice(long x) { return 2 * x + value; }
  }

  static final class Derived extends Base {
    @Override long twice(long x) { return super.twice(x) + 1; }
  }

  static int add(int a, int b) { return a + b; }
  static long mixLong(long a, long b) { return (a * 31 + b) ^ (a >>> 7); }
  static double scale(double a, int b) { return a * b; }
  static Object pick(Object a, Object b, int i) { return (i & 1) == 0 ? a : b; }
  static String join(String a, int b, long c, Object d) { return a + b + c + d; }
  static int sum6(int a, int b, int c, int d, int e, int f) { return a + b + c + d + e + f; }

  static int counter;
  static final VarHandle COUNTER;
  static final MethodHandle ADD, MIX, SCALE, PICK, JOIN, SUM6, TWICE, SUPER_TWICE, AREA, LENGTH, NEW_SQUARE;

  static {
    try {
      Lookup l = MethodHandles.lookup();
      COUNTER = l.findStaticVarHandle(Intrinsics.class, "counter", int.class);
      ADD = l.findStatic(Intrinsics.class, "add", MethodType.methodType(int.class, int.class, int.class));
      MIX = l.findStatic(Intrinsics.class, "mixLong", MethodType.methodType(long.class, long.class, long.class));
      SCALE = l.findStatic(Intrinsics.class, "scale", MethodType.methodType(double.class, double.class, int.class));
      PICK = l.findStatic(Intrinsics.class, "pick",
          MethodType.methodType(Object.class, Object.class, Object.class, int.class));
      JOIN = l.findStatic(Intrinsics.class, "join",
          MethodType.methodType(String.class, String.class, int.class, long.class, Object.class));
      SUM6 = l.findStatic(Intrinsics.class, "sum6", MethodType.methodType(int.class,
          int.class, int.class, int.class, int.class, int.class, int.class));
      TWICE = l.findVirtual(Base.class, "twice", MethodType.methodType(long.class, long.class));
      SUPER_TWICE = MethodHandles.privateLookupIn(Derived.class, l)
          .findSpecial(Base.class, "twice", MethodType.methodType(long.class, long.class), Derived.class)
          .bindTo(new Derived());
      AREA = l.findVirtual(Shape.class, "area", MethodType.methodType(double.class, double.class));
      LENGTH = l.findVirtual(String.class, "length", MethodType.methodType(int.class));
      NEW_SQUARE = l.findConstructor(Square.class, MethodType.methodType(void.class, double.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static long round(int i) throws Throwable {
    long sink = 0;
    sink += (int) ADD.invokeExact(i, 7);
    sink += (long) MIX.invokeExact((long) i, 13L);
    sink += (long) (double) SCALE.invokeExact(1.5, i);
    sink += ((Object) PICK.invokeExact((Object) "a", (Object) "bc", i)).hashCode();
    sink += (int) SUM6.invokeExact(i, 1, 2, 3, 4, 5);
    sink += (long) TWICE.invokeExact((Base) ((i & 1) == 0 ? new Base() : new Derived()), (long) i);
    sink += (long) SUPER_TWICE.invokeExact((long) i);
    Shape shape = (Shape) NEW_SQUARE.invoke((double) (i % 10));
    sink += (long) (double) AREA.invokeExact(shape, 2.0);
    sink += (int) LENGTH.invokeExact("x" + i);
    if (i % 64 == 0)
      sink += ((String) JOIN.invokeExact("s", i, (long) i, (Object) shape)).length();
    COUNTER.getAndAdd(1);
    return sink;
  }

  public static void main(String[] args) throws Throwable {
    Path ready = Path.of(args[0]), stop = Path.of(args[1]);
    IntBinaryOperator mul = (a, b) -> a * b;
    LongUnaryOperator inc = x -> x + 1;
    Function<Integer, String> text = x -> "v" + x;
    Supplier<Base> make = Derived::new;
    long sink = 0;
    long warm = System.nanoTime() + 1_500_000_000L;
    for (int i = 0; System.nanoTime() < warm; i++) {
      sink += round(i);
      sink += mul.applyAsInt(i, 3) + inc.applyAsLong(i) + text.apply(i & 255).length();
      sink += make.get().twice(i);
    }
    Files.writeString(ready, "ready " + sink + " " + counter + "\n");
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!Files.exists(stop) && System.nanoTime() < deadline)
      Thread.sleep(50);
  }
}
