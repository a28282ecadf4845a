// A Java workload that spends its time in HotSpot's stubs and intrinsics,
// called from compiled code under a deep stack: a worker thread recurses
// to DEPTH Java frames (its lambda, DEPTH - 2 frames of JavaStubs.deep, and
// the one that works) and then loops over one kind of work:
//
//   copy    Arrays.copyOf and System.arraycopy of large arrays: the
//           arraycopy stubs of the second stub blob ("StubRoutines (2)"),
//           called from the compiled JavaStubs.copy;
//   string  String.indexOf, equals and compareTo on long strings: C2's
//           string intrinsics, inlined into the compiled JavaStubs.strings,
//           and Arrays.equals/mismatch on long arrays: the vectorizedMismatch
//           stub;
//   mixed   both in turn, 67 ms each (the default).
//
// Every sample of the worker should show, root first: the thread's start,
// JavaStubs.lambda$main$0, DEPTH - 2 frames of JavaStubs.deep (compiled, C2
// inlines one recursion level into the next: _[j] and _[i] frames), then
// JavaStubs.copy or JavaStubs.strings, then the stub when one runs.
//
// The main thread lingers 0.7 s after the worker ends, so that a profiler
// handles the worker's last samples while the JVM still runs.
//
// Usage: java JavaStubs [copy|string|mixed] SECONDS [DEPTH]
import java.util.Arrays;

public class JavaStubs {
	static final int[] INTS = new int[16384];
	static final byte[] BYTES = new byte[65536];
	static final long[] LONGS_A = new long[8192];
	static final long[] LONGS_B = new long[8192];
	static String HAY, HAY2, NEEDLE;
	static volatile long sink;

	static long copy(long x) {
		long s = x;
		for (int k = 0; k < 64; k++) {
			int[] c = Arrays.copyOf(INTS, INTS.length);
			byte[] b = Arrays.copyOf(BYTES, BYTES.length - (k & 7));
			System.arraycopy(b, 1, b, 0, b.length - 1); // overlapping: conjoint
			s += c[k & 1023] + b[k & 4095];
		}
		return s;
	}

	static long strings(long x) {
		long s = x;
		for (int k = 0; k < 16; k++) {
			s += HAY.indexOf(NEEDLE);
			s += HAY.equals(HAY2) ? 1 : 0;
			s += HAY.compareTo(HAY2);
			s += Arrays.equals(LONGS_A, LONGS_B) ? 1 : 0;
			s += Arrays.mismatch(LONGS_A, LONGS_B);
		}
		return s;
	}

	static long deep(int d, int mode, long x) {
		if (d <= 0) {
			switch (mode) {
			case 0: return copy(x);
			case 1: return strings(x);
			default: /* in turn, 67 ms each */
				return ((System.nanoTime() >> 26) & 1) == 0 ? copy(x) : strings(x);
			}
		}
		return deep(d - 1, mode, x + d) + 1;
	}

	public static void main(String[] args) throws Exception {
		final int mode = args.length > 0 ? (args[0].equals("copy") ? 0 : args[0].equals("string") ? 1 : 2) : 2;
		final double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
		final int depth = args.length > 2 ? Integer.parseInt(args[2]) : 180;
		final long end = System.nanoTime() + (long)(seconds * 1e9);
		for (int i = 0; i < INTS.length; i++)
			INTS[i] = i * 31;
		for (int i = 0; i < BYTES.length; i++)
			BYTES[i] = (byte)i;
		StringBuilder sb = new StringBuilder();
		for (int i = 0; i < 200000; i++)
			sb.append((char)('a' + i % 23));
		HAY = sb.toString() + "needle";
		HAY2 = sb.toString() + "needlf";
		NEEDLE = "needle";
		Arrays.fill(LONGS_A, 7);
		Arrays.fill(LONGS_B, 7);
		Thread worker = new Thread(() -> {
			long x = 1;
			while (System.nanoTime() < end)
				x = deep(depth - 3, mode, x); // with the lambda and the leaf: depth frames
			sink = x;
		}, "worker");
		worker.start();
		worker.join();
		// linger: a profiler reading the JVM gets the worker's last
		// samples while the process still lives
		Thread.sleep(700);
	}
}
