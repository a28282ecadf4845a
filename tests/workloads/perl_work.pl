# Perl workloads for smolder's Perl tests (Perl 5.24+).
#   perl_work.pl chain SECONDS     main::outer -> Pkg::run -> main::inner,
#                                  tight loops in inner
#   perl_work.pl chains SECONDS    main::a_outer -> main::a_mid -> main::a_leaf
#                                  (crypt: MD5-crypt in libcrypt) and
#                                  main::b_outer -> main::b_mid -> main::b_leaf
#                                  (joining two 1 MB strings: libc's memcpy),
#                                  main::chains switching chains about every
#                                  millisecond
# Time is kept by the wall clock (Time::HiRes) inside the loops: a
# CPU-time clock is a system call where a busy host parks the thread.
use strict;
use warnings;
use Time::HiRes qw(time);

sub inner {
    my ($n) = @_;
    my $s = 0;
    for my $i (1 .. $n) {
        $s += $i * $i % 7;
    }
    return $s;
}

package Pkg;

sub run {
    my ($n) = @_;
    return main::inner($n);
}

package main;

sub outer {
    my ($until) = @_;
    my $t = 0;
    while (time < $until) {
        $t += Pkg::run(20000);
    }
    return $t;
}

sub a_leaf {
    my ($pw, $salt, $until) = @_;
    my $end = time + 0.001;
    $end = $until if $until < $end;
    my $h = '';
    while (time < $end) {
        $h = crypt($pw, $salt);
    }
    return $h;
}

sub a_mid { return a_leaf(@_) }
sub a_outer { return a_mid(@_) }

sub b_leaf {
    my ($blob, $until) = @_;
    my $end = time + 0.001;
    $end = $until if $until < $end;
    my $d = '';
    while (time < $end) {
        $d = $blob . $blob;
    }
    return length $d;
}

sub b_mid { return b_leaf(@_) }
sub b_outer { return b_mid(@_) }

sub chains {
    my ($until) = @_;
    my $pw = "smolder" . $$;
    my $salt = '$1$smolder$';
    my $blob = "smolder reads perl frames " x 40000;
    while (time < $until) {
        a_outer($pw, $salt, $until);
        b_outer($blob, $until);
    }
}

# A busy host gives the program a fraction of a CPU, and a test then
# too few samples: it runs until it had three quarters of its seconds
# of CPU (and its seconds of wall clock), within four times as many of the
# wall clock, reading its CPU time (a system call) between half-second
# slices only.
my ($mode, $seconds) = @ARGV;
$seconds //= 4;
die "usage: perl_work.pl chain|chains SECONDS\n" unless $mode eq 'chain' || $mode eq 'chains';
my $start = time;
my $t = 0;
while (1) {
    my $now = time;
    my ($user, $sys) = times;
    last if $now - $start >= $seconds && $user + $sys >= 0.75 * $seconds;
    last if $now - $start >= 4 * $seconds;
    if ($mode eq 'chain') {
        $t += outer($now + 0.5);
    } else {
        chains($now + 0.5);
    }
}
print "$t\n" if $mode eq 'chain';
