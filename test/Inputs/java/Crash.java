// Crashes the JVM in compiled code (a read of address 8 through Unsafe, once
// Crash.work is compiled), so HotSpot writes a fatal error report (hs_err).
import java.lang.reflect.Field;
import sun.misc.Unsafe;

public class Crash {
    static Unsafe unsafe;

    static long read(long address) {
        return unsafe.getLong(address);
    }

    static long work(long address, int rounds) {
        long sum = 0;
        for (int i = 0; i < rounds; i++)
            sum += read(address);
        return sum;
    }

    public static void main(String[] args) throws Exception {
        Field f = Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        unsafe = (Unsafe) f.get(null);
        long valid = unsafe.allocateMemory(8);
        long sum = 0;
        for (int i = 0; i < 20000; i++)
            sum += work(valid, 100);
        System.out.println("warm " + sum);
        work(8, 1); // a SIGSEGV in compiled code
    }
}
