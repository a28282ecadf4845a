// A Java workload whose call chains are known: a worker thread spends its
// time in outer -> Middle{A,B,C}.run -> Inner{A,B,C}.run. Each stage calls
// through an interface with three receivers in turn (megamorphic), so the
// JIT cannot inline one stage into the one above it: compiled frames stay
// frames of their own. With "inline" as the first argument it runs a second
// shape instead: Hot.caller calls the small Hot.leaf in a loop, which C2
// inlines, so leaf is a frame only as an inlined scope. leaf loops itself:
// the safepoint poll of its loop is the debug-info point (PcDesc) that
// says a pc is in leaf; code with none between the pc and the next
// call or poll is attributed to the scope of that call or poll, which is
// what HotSpot's own stack walks report too.
//
// Usage: java JavaChain.java [chain|inline] SECONDS
public class JavaChain {
	interface Stage { long run(long x); }

	static final class InnerA implements Stage {
		public long run(long x) { for (int i = 0; i < 2000; i++) x = x * 6364136223846793005L + 1442695040888963407L; return x; }
	}
	static final class InnerB implements Stage {
		public long run(long x) { for (int i = 0; i < 2000; i++) x = (x ^ (x >>> 13)) * 0x9E3779B97F4A7C15L; return x; }
	}
	static final class InnerC implements Stage {
		public long run(long x) { for (int i = 0; i < 2000; i++) x = Long.rotateLeft(x, 7) * 31 + i; return x; }
	}

	static final Stage[] INNER = { new InnerA(), new InnerB(), new InnerC() };

	static final class MiddleA implements Stage {
		public long run(long x) { for (int i = 0; i < 3; i++) x += INNER[i].run(x); return x; }
	}
	static final class MiddleB implements Stage {
		public long run(long x) { for (int i = 2; i >= 0; i--) x ^= INNER[i].run(x); return x; }
	}
	static final class MiddleC implements Stage {
		public long run(long x) { for (int i = 0; i < 3; i++) x -= INNER[(i + 1) % 3].run(x); return x; }
	}

	static final Stage[] MIDDLE = { new MiddleA(), new MiddleB(), new MiddleC() };

	static long outer(long x) {
		for (int i = 0; i < 3; i++)
			x += MIDDLE[i].run(x);
		return x;
	}

	static final class Hot {
		static long leaf(long x, int n) {
			for (int i = 0; i < n; i++)
				x = (x ^ i) * 0x9E3779B97F4A7C15L + (x >>> 29);
			return x;
		}
		static long caller(long x) {
			for (int i = 0; i < 1000; i++)
				x = leaf(x, 5000 + (i & 7));
			return x;
		}
	}

	static volatile long sink;

	public static void main(String[] args) throws Exception {
		final boolean inline = args.length > 0 && args[0].equals("inline");
		final double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
		final long end = System.nanoTime() + (long)(seconds * 1e9);
		Thread worker = new Thread(() -> {
			long x = 1;
			while (System.nanoTime() < end)
				x = inline ? Hot.caller(x) : outer(x);
			sink = x;
		}, "worker");
		worker.start();
		worker.join();
	}
}
