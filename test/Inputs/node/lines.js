// An optimized loop for source-line tests: TurboFan compiles sumSquares (with
// square inlined, from this same script); the outer loop calls into native
// code (process.hrtime -> uv_hrtime), where a test can stop first.
'use strict';
function square(x) {
  return x * x;
}
function sumSquares(values) {
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += square(values[i]);
  }
  return sum;
}
const values = Array.from({ length: 1000 }, (_, i) => i);
let total = 0;
for (let round = 0; round < 100000; round++) {
  total += sumSquares(values);
  process.hrtime();
}
console.log(total > 0 ? 'done' : 'never');
