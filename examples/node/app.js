// A Node program whose hot JS functions call into native code
// (process.hrtime -> uv_hrtime), so a breakpoint there stops under JIT frames.
'use strict';
function leaf(n) { return process.hrtime()[1] + n; }
function middle(n) { let s = 0; for (let i = 0; i < 3; i++) s += leaf(i + n); return s; }
function outer(n) { let t = 0; for (let i = 0; i < n; i++) t += middle(i); return t; }
const rounds = Number(process.argv[2] || 20000);
let r = 0;
for (let k = 0; k < rounds; k++) r += outer(5);
console.log('done', r > 0);
