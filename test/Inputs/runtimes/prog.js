// The runtime matrix's program (test/scripts/runtime_matrix.py), for Node,
// Deno (-A) and Bun: top -> outerLoop -> middle -> leaf -> a native call every
// 1024 iterations (Node: process.hrtime(), which is uv_hrtime; Deno and Bun:
// the host name, libc's gethostname, which neither runtime calls on its own,
// unlike clock_gettime). At the first native call leaf prints the runtime's
// own stack trace (before making the call), which the matrix compares with
// the frames LLDB names. The argument is the number of iterations.
"use strict";
const isDeno = typeof Deno !== "undefined";
const isBun = typeof Bun !== "undefined";
const args = isDeno ? Deno.args : process.argv.slice(2);
const ITERS = Number(args[0] || 200000);
const nativeCall = isDeno ? () => Deno.hostname()
                 : isBun ? () => require("os").hostname() : () => process.hrtime();
// Written at once (write(2)), not buffered: the matrix reads it while the
// program runs, to know that the native calls it stops in are leaf's.
const writeNow = isDeno ? (text) => Deno.stdout.writeSync(new TextEncoder().encode(text))
                        : (text) => require("fs").writeSync(1, text);

let calls = 0;
let printed = false;
const re = /ab+c(\d+)/g;

function leaf(i) {
  let v = (i * 31) ^ (i >>> 3);
  if ((i & 1023) === 0) {
    if (!printed) {
      printed = true;
      writeNow(new Error("leaf").stack + "\n");
    }
    nativeCall();
    calls++;
  }
  return v & 0xff;
}

// middle calls leaf, and outerLoop middle, through call sites that see eight
// functions each: an optimizing tier inlines none of them there, so each
// stays a frame of its own, and leaf's own optimized code is what runs once
// it exists (the breakpoint check stops in it). Every 1024th iteration goes
// through leaf.
const others = [(i) => i & 1, (i) => i & 3, (i) => i ^ 5, (i) => i | 2, (i) => i >> 1,
                (i) => i + 7, (i) => i * 3];
const leaves = [leaf, ...others];
const middles = [middle, ...others];

function middle(i) {
  return leaves[i & 7](i) + (i & 7);
}

function outerLoop(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += middles[(i >> 3) & 7](i);
  return s;
}

class Shape {
  constructor(x) { this.x = x; }
  area() { return this.x * this.x; }
}
const arrow = (k) => new Shape(k).area();

function regexWork(k) {
  let c = 0;
  const s = "xxabbbc" + k + " abc7 ";
  re.lastIndex = 0;
  let m;
  while ((m = re.exec(s)) !== null) c += m[1].length;
  return c;
}

function top() {
  let r = 0;
  for (let k = 0; k < 2000; k++) r += arrow(k) + regexWork(k);
  r += outerLoop(ITERS);
  return r;
}

console.log("result", top(), "calls", calls);
