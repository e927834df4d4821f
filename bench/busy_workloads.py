"""The busy programs bench/stop_latency.py stops: javac's sources, a
TypeScript project for tsc (and the compiler itself), and a Node script that
makes and calls new functions until its time is up."""
import os
import subprocess


def java_sources(directory, count):
    """`count` classes in package gen, each calling the one before it, with
    generics, lambdas, streams and a switch on strings for javac to attribute
    and lower. Returns their paths."""
    package = os.path.join(directory, "gen")
    os.makedirs(package)
    paths = []
    for i in range(count):
        previous = "C%d.f0(n - 1)" % (i - 1) if i else "n"
        methods = []
        for m in range(8):
            methods.append("""
    public static int f%(m)d(int n) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>();
        for (int i = 0; i < n + %(m)d; i++)
            entries.add(Map.entry("k" + i + "_%(i)d", i * %(m)d + %(i)d));
        Map<Boolean, List<Integer>> parts = entries.stream()
            .filter(e -> e.getKey().length() > %(m)d)
            .map(Map.Entry::getValue)
            .collect(Collectors.partitioningBy(v -> (v & 1) == 0));
        Function<Integer, Optional<String>> name = v -> Optional.of(v)
            .filter(x -> x > %(m)d).map(x -> String.format("%%d-%%s", x, "m%(m)d"));
        int sum = 0;
        for (Integer v : parts.getOrDefault(true, List.of()))
            sum += name.apply(v).map(String::length).orElse(0);
        switch (name.apply(n).orElse("")) {
            case "a%(i)d": sum += 1; break;
            case "b%(m)d": sum += 2; break;
            default: sum += %(previous)s > 0 ? 3 : 4;
        }
        return sum;
    }""" % {"m": m, "i": i, "previous": previous if m == 0 else "f%d(n - 1)" % (m - 1)})
        path = os.path.join(package, "C%d.java" % i)
        with open(path, "w") as f:
            f.write("package gen;\n\nimport java.util.*;\nimport java.util.function.*;\n"
                    "import java.util.stream.*;\n\npublic final class C%d {%s\n}\n"
                    % (i, "".join(methods)))
        paths.append(path)
    return paths


# Node: new functions without end, each called until V8 compiles it (Sparkplug
# after a few calls, TurboFan for the hotter ones), each a new code object
# announced in the perf map (and its interpreter trampoline copy, with
# --interpreted-frames-native-stack).
def typescript_sources(directory, count):
    """A TypeScript project of `count` modules, each importing the one before
    it, with generic classes, unions and mapped types for tsc to check.
    Returns the project's tsconfig.json."""
    os.makedirs(directory)
    for i in range(count):
        previous = "import { Shape%d, area%d } from './m%d';\n" % (i - 1, i - 1, i - 1) if i else ""
        body = """%(previous)s
export type Kind%(i)d = 'circle' | 'square' | 'tri%(i)d';
export interface Shape%(i)d<T extends number = number> { kind: Kind%(i)d; size: T; tags: string[]; }
export type Ro%(i)d<T> = { readonly [K in keyof T]: T[K] };
export class Box%(i)d<T> {
  private items: T[] = [];
  add(item: T): this { this.items.push(item); return this; }
  map<U>(f: (t: T, i: number) => U): Box%(i)d<U> {
    const b = new Box%(i)d<U>(); this.items.forEach((t, i) => b.add(f(t, i))); return b;
  }
}
export function area%(i)d(s: Ro%(i)d<Shape%(i)d>): number {
  switch (s.kind) {
    case 'circle': return Math.PI * s.size * s.size;
    case 'square': return s.size * s.size;
    default: return s.size * s.tags.length%(call)s;
  }
}
""" % {"i": i, "previous": previous,
       "call": " + area%d({ kind: 'square', size: 2, tags: [] } as Shape%d)" % (i - 1, i - 1)
               if i else ""}
        with open(os.path.join(directory, "m%d.ts" % i), "w") as f:
            f.write(body)
    config = os.path.join(directory, "tsconfig.json")
    with open(config, "w") as f:
        f.write('{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", '
                '"outDir": "out"}, "include": ["*.ts"]}\n')
    return config


def typescript_compiler(build):
    """npm's typescript@5 (tsc on Node; typescript 7 is a native program)."""
    prefix = os.path.join(build, "runtimes", "typescript5")
    tsc = os.path.join(prefix, "node_modules", "typescript", "lib", "tsc.js")
    if not os.path.exists(tsc):
        subprocess.run(["npm", "install", "--silent", "--prefix", prefix, "typescript@5"],
                       check=True)
    return tsc


NODE_SCRIPT = r"""
const end = Date.now() + Number(process.argv[2]) * 1000;
let made = 0, sink = 0;
while (Date.now() < end) {
  const k = made++;
  const body = `
    return function gen_${k}(a, b) {
      let s = ${k};
      const o = { x: ${k % 13}, y: b };
      for (let i = 0; i < a; i++) {
        s = (s * 31 + i * ${k % 97} + o.x) | 0;
        if ((s & ${(k % 7) + 1}) === 0) s ^= o.y + i;
      }
      return s;
    }`;
  const f = new Function(body)();
  const calls = k % 10 === 0 ? 20000 : 600;
  for (let i = 0; i < calls; i++) sink = (sink + f(24, i)) | 0;
}
console.log("functions made: " + made + " (" + sink + ")");
"""
