// Bench workload (node, no flags): recursive fib in a loop; the same
// progress protocol as the C workloads ("progress COUNT MONO_NS" on SIGUSR2
// and at exit). Signal handlers run on the event loop, between tasks: the
// loop yields after every batch of calls so that they get to run.
'use strict';
let done = 0;

function report() {
  process.stdout.write(`progress ${done} ${process.hrtime.bigint()}\n`);
}

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// SIGUSR2, not SIGUSR1: Debian's node dies of SIGUSR1 (its inspector's).
process.on('SIGUSR2', report);
for (const s of ['SIGTERM', 'SIGINT'])
  process.on(s, () => { report(); process.exit(0); });
report();

function batch() {
  for (let i = 0; i < 200; i++) {
    fib(18);
    done++;
  }
  setImmediate(batch);
}
batch();
