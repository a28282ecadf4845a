// Workload for tests/integration/node_lines.sh: hotLoop spins in the loop
// on the line marked LINE_LOOP, called by driver on the line marked
// LINE_CALL, for argv[2] seconds. The test finds the lines by their marks.
function hotLoop(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; // LINE_LOOP
  return x;
}
function driver(n) {
  let acc = 1;
  acc ^= hotLoop(n); // LINE_CALL
  return acc;
}
const end = Date.now() + 1000 * Number(process.argv[2] || 2);
let acc = 0;
while (Date.now() < end) for (let i = 0; i < 100; i++) acc ^= driver(20000);
console.log(acc & 1);
