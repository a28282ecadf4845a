# Bench workload (Perl 5): recursive fib in a loop; the same progress
# protocol as the C workloads ("progress COUNT MONO_NS" on SIGUSR1 and at
# exit). Time::HiRes's CLOCK_MONOTONIC, in nanoseconds.
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my $done = 0;

sub report {
    printf "progress %d %.0f\n", $done, clock_gettime(CLOCK_MONOTONIC) * 1e9;
    STDOUT->flush;
}

sub fib {
    my ($n) = @_;
    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);
}

$SIG{USR1} = \&report;
$SIG{TERM} = $SIG{INT} = sub { report(); exit 0 };
report();
while (1) {
    fib(18);
    $done++;
}
