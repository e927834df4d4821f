// Hot functions for jitdump tests: run long enough for TurboFan to optimize
// them (about a second), then exit.
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
const end = Date.now() + 1000;
let total = 0;
while (Date.now() < end) {
  total += sumSquares(values);
}
console.log(total > 0 ? 'done' : 'never');
