/* symbolize/demangle: C++ and Rust names. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "symbolize/demangle.h"

Test(demangle, cxx_and_rust)
{
	char buf[256];

	cr_assert_eq(demangle("_ZN2ns3FooIiE3barEv", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "ns::Foo<int>::bar()");
	cr_assert_eq(demangle("_ZN3std2rt10lang_start17h0123456789abcdefE", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "std::rt::lang_start");
	cr_assert_eq(demangle("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$"
			      "..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	cr_assert_eq(demangle("_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
			      "4drop17hfedcba9876543210E.llvm.42", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop");
	/* truncated, still terminated */
	cr_assert_eq(demangle("_ZN3std2rt10lang_start17h0123456789abcdefE", buf, 6), 1);
	cr_assert_str_eq(buf, "std::");
	/* not mangled / not understood: 0 and buf untouched */
	memcpy(buf, "keep", 5);
	cr_assert_eq(demangle("main", buf, sizeof(buf)), 0);
	cr_assert_eq(demangle("i", buf, sizeof(buf)), 0);
	cr_assert_eq(demangle("_ZN3foo", buf, sizeof(buf)), 0);
	cr_assert_eq(demangle("_RNvCs1234_7mycrate3foo", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "keep");
}

/* A compaction of the names table (common/strtab_remap.h) through the
 * symbolizers: after it, every cached answer reads the same from the new
 * table, cached pcs are still hits, and the garbage is gone. */
