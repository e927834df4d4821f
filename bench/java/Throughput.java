import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

// The JVMTI agent's overhead benchmark program. `Throughput SECONDS`: warms up
// for SECONDS, then counts rounds of a mixed workload (arithmetic, strings,
// collections, streams, exceptions, lambdas) for SECONDS and prints
// "rounds/s N". `Throughput 0` does one round and exits: the startup case.
public class Throughput {
  static long arithmetic(int n) {
    long sum = 0;
    for (int i = 0; i < n; i++)
      sum = (sum * 31 + i) ^ (sum >>> 7);
    return sum;
  }

  static long round(int r) {
    StringBuilder sb = new StringBuilder();
    Map<String, Integer> counts = new HashMap<>();
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      sb.append(i % 10);
      counts.merge("k" + (i % 13), 1, Integer::sum);
      list.add(i ^ r);
    }
    long sum = arithmetic(2000) + sb.length() + counts.size();
    sum += list.stream().filter(x -> x % 3 == 0).map(x -> x * 2).collect(Collectors.toList()).size();
    try {
      if (r % 7 == 0)
        throw new IllegalStateException("r" + r);
    } catch (IllegalStateException e) {
      sum += e.getMessage().length();
    }
    return sum;
  }

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    long sink = round(1);
    long warm = System.nanoTime() + (long) (seconds * 1e9);
    int r = 0;
    while (System.nanoTime() < warm)
      sink += round(r++);
    long start = System.nanoTime(), end = start + (long) (seconds * 1e9), rounds = 0;
    while (System.nanoTime() < end) {
      sink += round(r++);
      rounds++;
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (seconds > 0)
      System.out.printf("rounds/s %.0f%n", rounds / elapsed);
    if (sink == 42)
      System.out.println(); // keeps sink alive
  }
}
