/* runtimes/gostack: which Go runtime functions end a stack. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "runtimes/gostack.h"

static enum gostack_kind kind(const char *s)
{
	return gostack__kind(s, strlen(s));
}

Test(gostack, roots_and_switches_in_both_spellings)
{
	cr_assert_eq(kind("runtime.goexit"), GOSTACK_ROOT);
	cr_assert_eq(kind("runtime.goexit.abi0"), GOSTACK_ROOT);
	cr_assert_eq(kind("runtime.mstart.abi0"), GOSTACK_ROOT);
	cr_assert_eq(kind("runtime.rt0_go.abi0"), GOSTACK_ROOT);
	cr_assert_eq(kind("runtime.systemstack.abi0"), GOSTACK_SWITCH);
	cr_assert_eq(kind("runtime.mcall"), GOSTACK_SWITCH);
	cr_assert_eq(kind("runtime.morestack.abi0"), GOSTACK_SWITCH);
}

Test(gostack, look_alikes_are_not)
{
	static const char *const others[] = {
		"runtime.goexit1", "runtime.goexit0", "runtime.mstart1", "runtime.mstart0.abi0",
		"runtime.systemstack_switch.abi0", "runtime.morestack_noctxt.abi0", "main.goexit",
		"runtime.goexit.abi", "runtime.goexit.abi0.abi0", ".abi0", "", "runtime.",
	};
	size_t i;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		cr_assert_eq(kind(others[i]), GOSTACK_NONE, "%s", others[i]);
}

Test(gostack, go_sections)
{
	cr_assert(gostack__is_go_section(".gopclntab"));
	cr_assert(gostack__is_go_section(".go.buildinfo"));
	cr_assert_not(gostack__is_go_section(".text"));
	cr_assert_not(gostack__is_go_section(".gopclntab2"));
}
