import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

// Makes HotSpot compile a method of a class that is then unloaded, so that its
// compiled code is freed. args: READY STOP ADDRESSES. Loads Unloader$Payload
// through a class loader of its own, calls spin() until it is compiled (the
// test reads the agent's jitdump for that), drops the loader and collects
// until the class is gone, then writes READY and waits for STOP.
public class Unloader {
  public static class Payload {
    public static long spin(int n) {
      long sum = 0;
      for (int i = 0; i < n; i++)
        sum += (i * 17L) ^ (sum >>> 5);
      return sum;
    }
  }

  static class OwnLoader extends ClassLoader {
    private final byte[] bytes;
    OwnLoader(byte[] bytes) {
      super(null);
      this.bytes = bytes;
    }
    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (!name.equals("Unloader$Payload"))
        throw new ClassNotFoundException(name);
      return defineClass(name, bytes, 0, bytes.length);
    }
  }

  static java.lang.ref.WeakReference<Class<?>> compileInOwnLoader(byte[] bytes) throws Exception {
    Class<?> payload = new OwnLoader(bytes).loadClass("Unloader$Payload");
    Method spin = payload.getMethod("spin", int.class);
    long sink = 0;
    long warm = System.nanoTime() + 1_500_000_000L;
    while (System.nanoTime() < warm)
      sink += (Long) spin.invoke(null, 2000);
    System.out.println("compiled " + sink);
    return new java.lang.ref.WeakReference<>(payload);
  }

  public static void main(String[] args) throws Exception {
    Path ready = Path.of(args[0]), stop = Path.of(args[1]);
    byte[] bytes = Unloader.class.getResourceAsStream("Unloader$Payload.class").readAllBytes();
    java.lang.ref.WeakReference<Class<?>> gone = compileInOwnLoader(bytes);
    for (int i = 0; i < 50 && gone.get() != null; i++) {
      System.gc();
      Thread.sleep(100);
    }
    System.out.println(gone.get() == null ? "unloaded" : "still loaded");
    Thread.sleep(1000); // unload events reach the agent through the service thread
    Files.writeString(ready, "ready\n");
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!Files.exists(stop) && System.nanoTime() < deadline)
      Thread.sleep(50);
  }
}
