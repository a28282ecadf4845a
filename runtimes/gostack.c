/* The roots and stack switches of Go's runtime. */
#include "config.h"

#include <string.h>

#include "runtimes/gostack.h"

static const struct {
	const char *name;
	enum gostack_kind kind;
} known[] = {
	{ "runtime.goexit", GOSTACK_ROOT },
	{ "runtime.mstart", GOSTACK_ROOT },
	{ "runtime.rt0_go", GOSTACK_ROOT },
	{ "runtime.systemstack", GOSTACK_SWITCH },
	{ "runtime.mcall", GOSTACK_SWITCH },
	{ "runtime.morestack", GOSTACK_SWITCH },
};

enum gostack_kind gostack__kind(const char *name, size_t len)
{
	static const char abi0[] = ".abi0";
	size_t i;

	if (len > sizeof(abi0) - 1 && memcmp(name + len - (sizeof(abi0) - 1), abi0, sizeof(abi0) - 1) == 0)
		len -= sizeof(abi0) - 1;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].name) == len && memcmp(known[i].name, name, len) == 0)
			return known[i].kind;
	return GOSTACK_NONE;
}

int gostack__is_go_section(const char *section_name)
{
	return strcmp(section_name, ".gopclntab") == 0 || strcmp(section_name, ".go.buildinfo") == 0;
}
