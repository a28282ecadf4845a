// A Java workload whose lines are known, for frames that carry them
// (tests/integration/java_lines.sh reads the line numbers marked below
// from this file: keep the markers on the lines they mark). A thread
// "worker" spends its time in hot's loop, called from caller; hot is
// small and C2 inlines it into caller, so compiled samples see hot as an
// inlined scope at its loop's safepoint and caller at its call, and
// interpreted ones (the warm-up, or -Xint) both as frames of their own.
//
// Usage: java JavaLines SECONDS
public class JavaLines {
	static long hot(long x, int n) {
		for (int i = 0; i < n; i++) // LINE:HOT_LOOP
			x = (x ^ i) * 0x9E3779B97F4A7C15L + (x >>> 29); // LINE:HOT_BODY
		return x;
	}

	static long caller(long x) {
		return hot(x, 20000); // LINE:CALL
	}

	static volatile long sink;

	public static void main(String[] args) throws Exception {
		final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		final long end = System.nanoTime() + (long)(seconds * 1e9);
		Thread worker = new Thread(() -> {
			long x = 1;
			while (System.nanoTime() < end)
				x = caller(x);
			sink = x;
		}, "worker");
		worker.start();
		worker.join();
	}
}
