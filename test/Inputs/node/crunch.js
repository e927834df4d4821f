// crunchTotals runs 30,000 times: interpreted first, then compiled to machine
// code (baseline, then optimized). interpretedOnly runs once, interpreted only.
console.log("node pid " + process.pid);
function crunchTotals(values) {
  let total = 0;
  for (const v of values) total += v * 2;
  return total;
}
function interpretedOnly(x) {
  return x + 1;
}
const data = Array.from({ length: 100 }, (_, i) => i);
let sum = 0;
for (let i = 0; i < 30000; i++) sum += crunchTotals(data);
sum += interpretedOnly(1);
console.log("sum " + sum);
