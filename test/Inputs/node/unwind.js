// TurboFan code whose epilogue drops extra arguments: sumSquares is called
// with more arguments than it declares, so each return runs the instructions
// after `pop rbp` where only V8's unwind table describes the frame right.
'use strict';
function sumSquares(values) {
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i] * values[i];
  }
  return sum;
}
const values = Array.from({ length: 1000 }, (_, i) => i);
let total = 0;
for (let round = 0; round < 100000; round++) {
  total += sumSquares(values, round, 'extra');
  process.hrtime();
}
console.log(total > 0 ? 'done' : 'never');
