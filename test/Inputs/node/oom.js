// Grows an array until V8 gives up: Node prints its fatal error report.
const kept = [];
function grow() {
  for (;;) kept.push({ n: kept.length, s: "y".repeat(10) + kept.length });
}
grow();
