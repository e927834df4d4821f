import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

// A workload that makes HotSpot compile a few hundred methods of its own and
// of the JDK (lambdas, streams, collections, strings, exceptions), at C1 and
// C2. args: READY STOP. Writes READY once warm, exits when STOP appears (or
// after 120 s), compiling nothing meanwhile.
public class Workload {
  static long mix(long a, int b) {
    return (a * 31 + b) ^ (a >>> 7);
  }

  static long arithmetic(int n) {
    long sum = 0;
    for (int i = 0; i < n; i++)
      sum = mix(sum, i);
    return sum;
  }

  static int strings(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++)
      sb.append(i % 10).append(',');
    return sb.toString().split(",").length;
  }

  static int collections(int n) {
    Map<String, Integer> counts = new HashMap<>();
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      counts.merge("k" + (i % 17), 1, Integer::sum);
      list.add(i);
    }
    return counts.size() + list.stream().filter(x -> x % 3 == 0).collect(Collectors.toList()).size();
  }

  static int exceptions(int n) {
    int caught = 0;
    for (int i = 0; i < n; i++) {
      try {
        if (i % 5 == 0)
          throw new IllegalStateException("x" + i);
      } catch (IllegalStateException e) {
        caught++;
      }
    }
    return caught;
  }

  public static void main(String[] args) throws Exception {
    Path ready = Path.of(args[0]), stop = Path.of(args[1]);
    IntUnaryOperator square = x -> x * x;
    long sink = 0;
    long warm = System.nanoTime() + 2_000_000_000L;
    while (System.nanoTime() < warm) {
      sink += arithmetic(2000) + strings(50) + collections(50) + exceptions(20);
      sink += IntStream.range(0, 50).map(square).sum();
    }
    Files.writeString(ready, "ready " + sink + "\n");
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!Files.exists(stop) && System.nanoTime() < deadline)
      Thread.sleep(50);
  }
}
