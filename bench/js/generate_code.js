// Code made as it runs: 400 new functions, each run hot, a hot helper, and a
// full compacting GC every 50 rounds (code moves). Issue 38's program.
let sum = 0;
function hot(x) { return (x * 31) ^ (x >> 3); }
for (let round = 0; round < 400; round++) {
  const made = new Function("a", "b", `return a * ${round} + b;`);
  for (let i = 0; i < 20000; i++) sum += made(i, round) + hot(i);
  if (round % 50 === 0 && typeof gc === "function") gc();
}
console.log("done", sum);
