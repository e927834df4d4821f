// Busy in JavaScript until killed: spin runs hot (compiled to machine code
// soon), called from outer's endless loop. Something to interrupt.
function spin(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i % 7;
  return s;
}
function outer() {
  let total = 0;
  for (;;) total += spin(100000);
}
outer();
