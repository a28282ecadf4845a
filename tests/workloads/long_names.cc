// Workload: C++ functions whose demangled names are over 2 KiB, for
// argv[1] seconds: Pack<T0..T39>::spin_a and ::spin_b (names that differ
// only at their end) and Pack<T1..T40>::spin_a (another instantiation of
// the same function, which `--names short` merges with the first).
#include "wl_time.h"

#define TYPE(n) struct LongTypeNameThatTemplateHeavyCodeIsFullOfNumber_##n {};
#define T(n) LongTypeNameThatTemplateHeavyCodeIsFullOfNumber_##n
TYPE(0) TYPE(1) TYPE(2) TYPE(3) TYPE(4) TYPE(5) TYPE(6) TYPE(7) TYPE(8) TYPE(9)
TYPE(10) TYPE(11) TYPE(12) TYPE(13) TYPE(14) TYPE(15) TYPE(16) TYPE(17) TYPE(18) TYPE(19)
TYPE(20) TYPE(21) TYPE(22) TYPE(23) TYPE(24) TYPE(25) TYPE(26) TYPE(27) TYPE(28) TYPE(29)
TYPE(30) TYPE(31) TYPE(32) TYPE(33) TYPE(34) TYPE(35) TYPE(36) TYPE(37) TYPE(38) TYPE(39)
TYPE(40)

template <class... Ts> struct Pack {
	WL_NOINLINE static unsigned long spin_a(unsigned long x)
	{
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + (unsigned long)i;
		return x;
	}
	WL_NOINLINE static unsigned long spin_b(unsigned long x)
	{
		for (int i = 0; i < 20000; i++)
			x = x * 2862933555777941757ul + (unsigned long)i;
		return x;
	}
};

typedef Pack<T(0), T(1), T(2), T(3), T(4), T(5), T(6), T(7), T(8), T(9), T(10), T(11), T(12),
	     T(13), T(14), T(15), T(16), T(17), T(18), T(19), T(20), T(21), T(22), T(23), T(24),
	     T(25), T(26), T(27), T(28), T(29), T(30), T(31), T(32), T(33), T(34), T(35), T(36),
	     T(37), T(38), T(39)> First;
typedef Pack<T(1), T(2), T(3), T(4), T(5), T(6), T(7), T(8), T(9), T(10), T(11), T(12), T(13),
	     T(14), T(15), T(16), T(17), T(18), T(19), T(20), T(21), T(22), T(23), T(24), T(25),
	     T(26), T(27), T(28), T(29), T(30), T(31), T(32), T(33), T(34), T(35), T(36), T(37),
	     T(38), T(39), T(40)> Second;

volatile unsigned long sink;

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 2);
	unsigned long x = 1;

	while (wl_now() < end) {
		x = First::spin_a(x);
		x = First::spin_b(x);
		x = Second::spin_a(x);
	}
	sink = x;
	return 0;
}
