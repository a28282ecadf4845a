/* runtimes/pycmd.c and script_label.c: what a Python command line runs. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "runtimes/pycmd.h"
#include "runtimes/script_label.h"

/* argv joined with NULs, as /proc/PID/cmdline has it. */
static int run(const char *const *argv, char *out, size_t size)
{
	char buf[1024];
	size_t n = 0, i;

	for (i = 0; argv[i]; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(buf + n, argv[i], l);
		n += l;
	}
	return pycmd__main(buf, n, out, size);
}

#define LABEL(want, ...)                                                                         \
	do {                                                                                     \
		const char *const argv[] = { __VA_ARGS__, NULL };                                \
		char out[128];                                                                   \
		int rc = run(argv, out, sizeof(out));                                            \
		cr_assert_gt(rc, 0, "%s: %d", argv[1], rc);                                      \
		cr_assert_str_eq(out, want);                                                     \
		cr_assert_eq((size_t)rc, strlen(want));                                          \
	} while (0)

#define NONE(...)                                                                                \
	do {                                                                                     \
		const char *const argv[] = { __VA_ARGS__, NULL };                                \
		char out[128];                                                                   \
		cr_assert_eq(run(argv, out, sizeof(out)), -ENOENT);                              \
	} while (0)

Test(pycmd, scripts)
{
	LABEL("py_work.py", "/usr/bin/python3", "/srv/tests/py_work.py", "chains", "4");
	LABEL("worker.py", "python3", "-u", "-B", "worker.py");
	LABEL("worker.py", "python3", "-uB", "-W", "ignore", "-X", "dev", "/opt/worker.py", "-v");
	LABEL("worker.py", "python2.7", "-Wignore", "-Qnew", "worker.py");
	LABEL("shop/app.py", "python3", "/srv/shop/app.py");
	LABEL("billing/__main__.py", "python3", "/srv/billing/__main__.py");
	LABEL("tool.pyz", "python3", "/opt/tool.pyz");
	LABEL("myapp", "python3", "/opt/myapp/");
	LABEL("-odd.py", "python3", "--", "-odd.py");
	LABEL("gunicorn", "/usr/bin/python3", "/usr/bin/gunicorn", "app:app");
	LABEL("x.py", "python3", "--check-hash-based-pycs", "never", "x.py");
}

Test(pycmd, modules)
{
	LABEL("http.server", "python3", "-m", "http.server", "8000");
	LABEL("http.server", "python3", "-mhttp.server");
	LABEL("celery", "python3", "-u", "-m", "celery", "worker");
	LABEL("pip", "python3", "-Im", "pip", "list");
}

Test(pycmd, code_given_runs_no_script)
{
	NONE("python3");
	NONE("python3", "-c", "print(1)");
	NONE("python3", "-uc", "print(1)");
	NONE("python3", "-");
	NONE("python3", "-W", "ignore");
	NONE("python3", "--version");
}

Test(pycmd, a_cut_command_line_is_not_guessed)
{
	const char cut[] = "python3\0/srv/a_very_long_scri"; /* no final NUL */
	char out[64];

	cr_assert_eq(pycmd__main(cut, sizeof(cut) - 1, out, sizeof(out)), -ENOENT);
	cr_assert_eq(pycmd__main("python3\0x.py", 13, out, 3), -ENAMETOOLONG);
}

Test(script_label, generic_names_take_their_directory)
{
	static const char *const generic[] = { "main." };
	char out[64];

	cr_assert_eq(script_label__from_path("/srv/shop/main.rb", 17, generic, 1, out, sizeof(out)), 12);
	cr_assert_str_eq(out, "shop/main.rb");
	cr_assert_eq(script_label__from_path("main.rb", 7, generic, 1, out, sizeof(out)), 7);
	cr_assert_str_eq(out, "main.rb");
	cr_assert_eq(script_label__from_path("/srv/", 5, generic, 1, out, sizeof(out)), -ENOENT);
}
