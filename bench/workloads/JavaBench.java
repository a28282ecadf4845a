// Bench workload (java): tests/workloads/JavaChain.java's chain
// (outer -> Middle*.run -> Inner*.run, megamorphic, compiled) in a loop on
// a worker thread, with the progress protocol of the other workloads:
// "progress COUNT MONO_NS" at start, on SIGUSR1 and on SIGTERM (HotSpot
// leaves SIGUSR1 to applications; System.nanoTime is CLOCK_MONOTONIC).
// Compiled together with JavaChain.java.
import sun.misc.Signal;

public class JavaBench {
	static volatile long done;

	static void report() {
		System.out.println("progress " + done + " " + System.nanoTime());
		System.out.flush();
	}

	public static void main(String[] args) throws Exception {
		Signal.handle(new Signal("USR1"), s -> report());
		Signal.handle(new Signal("TERM"), s -> {
			report();
			System.exit(0);
		});
		report();
		Thread worker = new Thread(() -> {
			long x = 1;
			for (;;) {
				x = JavaChain.outer(x);
				done++;
			}
		}, "worker");
		worker.start();
		worker.join();
	}
}
