<?php
// Bench workload (PHP 7.1+ CLI with pcntl): recursive fib in a loop; the
// same progress protocol as the C workloads ("progress COUNT MONO_NS" on
// SIGUSR1 and at exit). hrtime() is CLOCK_MONOTONIC.
$done = 0;

function report()
{
    global $done;
    echo "progress $done " . hrtime(true) . "\n";
    fflush(STDOUT);
}

function fib($n)
{
    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);
}

pcntl_async_signals(true);
pcntl_signal(SIGUSR1, function () { report(); });
pcntl_signal(SIGTERM, function () { report(); exit(0); });
pcntl_signal(SIGINT, function () { report(); exit(0); });
report();
while (true) {
    fib(18);
    $done++;
}
