/* Opening an ELF file as a libdwfl module, for the unit tests of the
 * DWARF readers (test_inlines, test_inlineindex). */
#ifndef SMOLDER_TESTS_UNIT_DWFLMOD_H
#define SMOLDER_TESTS_UNIT_DWFLMOD_H
#include <criterion/criterion.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

/* path as a libdwfl module, debug info from /usr/lib/debug by build-id. */
static inline Dwfl *dwflmod_open(const char *path, Dwfl_Module **mod)
{
	static char *dbg = (char *)"/usr/lib/debug";
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_build_id_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &dbg,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	int fd = open(path, O_RDONLY);

	cr_assert_not_null(dwfl);
	cr_assert_geq(fd, 0, "%s", path);
	dwfl_report_begin(dwfl);
	*mod = dwfl_report_elf(dwfl, "m", path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	cr_assert_not_null(*mod, "%s", path);
	return dwfl;
}

#endif
