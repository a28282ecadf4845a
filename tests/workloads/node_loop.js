// Workload: outerLoop -> middleStep -> leafWork in JavaScript, for argv[2]
// seconds; run with node --perf-basic-prof, which names the JIT code in
// /tmp/perf-PID.map (tests/integration/node_jit.sh).
function leafWork(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; }
function middleStep(n) { return leafWork(n) ^ 1; }
function outerLoop(n) { return middleStep(n) ^ 2; }
const end = Date.now() + 1000 * Number(process.argv[2] || 2);
let acc = 0;
while (Date.now() < end) { for (let i = 0; i < 100; i++) acc ^= outerLoop(10000); }
console.log(acc & 1);
