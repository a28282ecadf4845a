# Bench workload (CRuby 2.0 and later): recursive fib in a loop; the same
# progress protocol as the C workloads ("progress COUNT MONO_NS" on SIGUSR1
# and at exit).
$done = 0

def report
  $stdout.write(format("progress %d %d\n", $done, Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)))
  $stdout.flush
end

def fib(n)
  n < 2 ? n : fib(n - 1) + fib(n - 2)
end

# Signal handlers run between instructions, on the main thread: no lock
# is held there that report needs.
Signal.trap('USR1') { report }
%w[TERM INT].each { |s| Signal.trap(s) { report; exit 0 } }
report
loop do
  fib(18)
  $done += 1
end
