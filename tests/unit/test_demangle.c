/* symbolize/demangle: C++, Rust (legacy and v0) and D names, in full and
 * short detail, and what hostile names cannot do. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

static void expect(const char *mangled, enum name_detail d, const char *want)
{
	char *got = demangle(mangled, d);

	cr_assert(got != NULL, "%s (%s): not demangled", mangled, name_detail__name(d));
	cr_expect_str_eq(got, want, "%s (%s)", mangled, name_detail__name(d));
	free(got);
}

static void expect_short(const char *demangled, const char *want)
{
	char *s = strdup(demangled);

	cr_assert(s != NULL);
	demangle__shorten(s);
	cr_expect_str_eq(s, want, "short of '%s'", demangled);
	free(s);
}

Test(demangle, cxx)
{
	expect("_ZN2ns3FooIiE3barEv", NAME_DETAIL_FULL, "ns::Foo<int>::bar()");
	expect("_ZN2ns3FooIiE3barEv", NAME_DETAIL_SHORT, "ns::Foo::bar");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi", NAME_DETAIL_FULL,
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi", NAME_DETAIL_SHORT, "std::vector::push_back");
	/* a template function's return type goes with its arguments */
	expect("_Z3fooIiEvT_", NAME_DETAIL_SHORT, "foo");
	expect("_ZZ4mainENKUliE_clEi", NAME_DETAIL_SHORT, "main::{lambda(int)#1}::operator()");
	expect("_ZN12_GLOBAL__N_13fooEv", NAME_DETAIL_SHORT, "(anonymous namespace)::foo");
	expect("_ZlsRSoRK3Foo", NAME_DETAIL_SHORT, "operator<<");
	expect("_ZN1AcviEv", NAME_DETAIL_SHORT, "A::operator int");
}

Test(demangle, rust_legacy)
{
	/* the hash goes in both details: rebuilds aggregate together */
	expect("_ZN3std2rt10lang_start17h0123456789abcdefE", NAME_DETAIL_FULL, "std::rt::lang_start");
	expect("_ZN3std2rt10lang_start17h0123456789abcdefE", NAME_DETAIL_SHORT, "std::rt::lang_start");
	expect("_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
	       "4drop17hfedcba9876543210E.llvm.42", NAME_DETAIL_SHORT,
	       "<alloc::vec::Vec as core::ops::drop::Drop>::drop");
}

#ifdef HAVE_LIBIBERTY
Test(demangle, rust_v0_and_d)
{
	static const char v0[] = "_RINvNtCsfq2Zq5gqAK1_2v05outer5innermEB4_";

	/* crate disambiguators and generic arguments */
	expect(v0, NAME_DETAIL_FULL, "v0::outer::inner::<u32>");
	expect(v0, NAME_DETAIL_SHORT, "v0::outer::inner");
	expect("_RNvNtCs1234_7mycrate5outer5inner", NAME_DETAIL_SHORT, "mycrate::outer::inner");
	expect("_D4test3fooFiZv", NAME_DETAIL_FULL, "test.foo(int)");
	expect("_D4test3fooFiZv", NAME_DETAIL_SHORT, "test.foo");
	cr_expect(strstr(demangle__engine(), "v0") != NULL, "engine: %s", demangle__engine());
}
#endif

Test(demangle, not_mangled)
{
	cr_expect_null(demangle("main", NAME_DETAIL_FULL));
	/* __cxa_demangle alone would read "i" as the type int */
	cr_expect_null(demangle("i", NAME_DETAIL_FULL));
	cr_expect_null(demangle("_ZN3foo", NAME_DETAIL_FULL));
	cr_expect_null(demangle("_D", NAME_DETAIL_FULL));
	cr_expect_null(demangle("", NAME_DETAIL_SHORT));
	cr_expect_null(demangle(NULL, NAME_DETAIL_SHORT));
}

/* Names from users' binaries: too long, nested past any sense, or built
 * to expand without end. None may crash, hang or take the memory. */
Test(demangle, hostile)
{
	size_t n = DEMANGLE_INPUT_MAX + 100, i;
	char *s = malloc(n + 1);
	char *r;

	cr_assert(s != NULL);
	/* over the input bound: left raw */
	memcpy(s, "_Z1f", 4);
	memset(s + 4, 'i', n - 4);
	s[n] = '\0';
	cr_expect_null(demangle(s, NAME_DETAIL_FULL));
	/* deep nesting within the bound: the demangler's recursion limit */
	strcpy(s, "_Z1fI");
	for (i = 0; i < 5000; i++)
		strcat(s, "P");
	strcat(s, "iEvv");
	r = demangle(s, NAME_DETAIL_FULL);
	free(r);
	/* substitutions that double at every level: the output bound */
	strcpy(s, "_Z1fIiEvT_");
	{
		char bomb[] = "_Z1gIN1AIS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IiEEEEEEEEEEEEEEEEEEEEEEEvv";

		r = demangle(bomb, NAME_DETAIL_FULL);
		cr_expect(r == NULL || strlen(r) <= DEMANGLE_OUTPUT_MAX);
		free(r);
	}
	free(s);
}

Test(demangle, shorten)
{
	expect_short("std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector::push_back");
	expect_short("void foo<int>(int)", "foo");
	expect_short("unsigned long bar(char const*) const &", "bar");
	expect_short("foo(int) [clone .constprop.0]", "foo");
	expect_short("foo [clone .cold]", "foo");
	expect_short("bool operator< <int>(A<int> const&, A<int> const&)", "operator<");
	expect_short("A::operator<=>(A const&) const", "A::operator<=>");
	expect_short("A::operator->() const", "A::operator->");
	expect_short("A::operator()(int)", "A::operator()");
	expect_short("operator new[](unsigned long)", "operator new[]");
	expect_short("<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop",
		     "<alloc::vec::Vec as core::ops::drop::Drop>::drop");
	expect_short("<[addr2line::line::LineSequence]>::sort_by_key<u64, F>::{closure#0}",
		     "<[addr2line::line::LineSequence]>::sort_by_key::{closure#0}");
	expect_short("v0::outer::inner::<&str>", "v0::outer::inner");
	expect_short("foo(int)::Local::run()", "foo::Local::run");
	/* nothing left: kept whole */
	expect_short("<>", "<>");
	expect_short("", "");
}

Test(demangle, detail_names)
{
	enum name_detail d;

	cr_expect_eq(name_detail__parse("full", &d), 0);
	cr_expect_eq(d, NAME_DETAIL_FULL);
	cr_expect_eq(name_detail__parse("short", &d), 0);
	cr_expect_eq(d, NAME_DETAIL_SHORT);
	cr_expect_eq(name_detail__parse("Full", &d), -1);
	cr_expect_eq(name_detail__parse(NULL, &d), -1);
	cr_expect_str_eq(name_detail__name(NAME_DETAIL_FULL), "full");
	cr_expect_eq(NAME_DETAIL_DEFAULT, NAME_DETAIL_SHORT);
}
