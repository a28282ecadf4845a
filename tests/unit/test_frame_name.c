/* profile/frame_name: composing frame names, and parsing them back. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "common/strtab.h"
#include "profile/frame_name.h"

static struct strtab *names;

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
}

static void teardown(void)
{
	strtab__delete(names);
	names = NULL;
}

TestSuite(frame_name, .init = setup, .fini = teardown);

static const char *fname(const char *in, const char *suffix)
{
	uint32_t id = 0;

	cr_assert_eq(frame_name__intern(names, in, suffix, &id), 0);
	return strtab__str(names, id);
}

Test(frame_name, sanitizes)
{
	char longname[FRAME_NAME_MAX * 2 + 1];
	const char *r;
	size_t i;

	cr_assert_str_eq(fname("a;b\tc\x7f" "d\n", ""), "a:bcd");
	cr_assert_str_eq(fname("do_sys_open", "_[k]"), "do_sys_open_[k]");
	cr_assert_str_eq(fname("", "_[i]"), "[unknown]_[i]");
	cr_assert_str_eq(fname("bad\xff\xc0utf8 \xc3\xa9t\xc3\xa9", ""), "badutf8 \xc3\xa9t\xc3\xa9");
	/* A name past the cap is cut in the middle, visibly and counted,
	 * never splitting a multi-byte sequence ("é" is 2 bytes): its start
	 * and its end (the function's own name) stay. */
	longname[0] = 'x';
	for (i = 1; i + 1 < sizeof(longname); i += 2)
		memcpy(longname + i, "\xc3\xa9", 2);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname + sizeof(longname) - 4, "end", 3);
	{
		uint64_t before = frame_name__cuts();
		const char *mark;

		r = fname(longname, "");
		cr_assert_eq(frame_name__cuts(), before + 1);
		mark = strstr(r, FRAME_NAME_CUT);
		cr_assert_not_null(mark, "no cut mark");
		cr_assert_eq(r[0], 'x');
		cr_assert_str_eq(r + strlen(r) - 3, "end");
		for (i = 1; r + i < mark; i += 2)
			cr_assert(!memcmp(r + i, "\xc3\xa9", 2), "split sequence before the mark at %zu", i);
	}
	cr_assert_leq(strlen(r), FRAME_NAME_MAX);
	/* names below the cap are whole: a 2 KiB template name */
	memset(longname, 'T', 2500);
	longname[2500] = '\0';
	cr_assert_eq(strlen(fname(longname, "")), 2500);
	for (i = 1; i + 1 < sizeof(longname); i += 2)
		memcpy(longname + i, "\xc3\xa9", 2);
	longname[sizeof(longname) - 1] = '\0';
	r = fname(longname, "_[j]");
	cr_assert_leq(strlen(r), FRAME_NAME_MAX);
	cr_assert_str_eq(r + strlen(r) - 4, "_[j]");
	cr_assert_eq((unsigned char)r[strlen(r) - 5], 0xa9);
}

static const char *module_name(const char *module)
{
	uint32_t id = 0;

	cr_assert_eq(frame_name__module(names, module, &id), 0);
	return strtab__str(names, id);
}

Test(frame_name, module)
{
	cr_assert_str_eq(module_name("libc.so.6"), "[libc.so.6]");
	cr_assert_str_eq(module_name("/usr/lib/x86_64-linux-gnu/libc.so.6"), "[libc.so.6]");
	cr_assert_str_eq(module_name("[vdso]"), "[[vdso]]");
	cr_assert_str_eq(module_name("/opt/a;b\tc"), "[a:bc]");
	cr_assert_str_eq(module_name(NULL), "[unknown]");
	cr_assert_str_eq(module_name(""), "[unknown]");
	cr_assert_str_eq(module_name("/tmp/"), "[unknown]");
}

static struct frame_parts parts(const char *s)
{
	struct frame_parts p;

	frame_name__parse(s, &p);
	return p;
}

static int name_is(const struct frame_parts *p, const char *want)
{
	return p->name_len == strlen(want) && !memcmp(p->name, want, p->name_len);
}

static int module_is(const struct frame_parts *p, const char *want)
{
	return p->module && p->module_len == strlen(want) && !memcmp(p->module, want, p->module_len);
}

/* What the composer writes, the parser reads back. */
Test(frame_name, parse_what_intern_composes)
{
	struct frame_parts p;

	p = parts(fname("do_sys_open", FRAME_SUFFIX_KERNEL));
	cr_assert_eq(p.kind, FRAME_KERNEL);
	cr_assert(name_is(&p, "do_sys_open"));
	p = parts(fname("std::vector<int>::push_back", FRAME_SUFFIX_INLINED));
	cr_assert_eq(p.kind, FRAME_INLINED);
	cr_assert(name_is(&p, "std::vector<int>::push_back"));
	p = parts(fname("LazyCompile:*hot file.js:1", FRAME_SUFFIX_JIT));
	cr_assert_eq(p.kind, FRAME_JIT);
	cr_assert(name_is(&p, "LazyCompile:*hot file.js:1"));
	p = parts(fname("inner (app.py)", FRAME_SUFFIX_PYTHON));
	cr_assert_eq(p.kind, FRAME_INTERPRETED);
	cr_assert(name_is(&p, "inner (app.py)"));
	p = parts(fname("Klass#run (app.rb)", FRAME_SUFFIX_RUBY));
	cr_assert_eq(p.kind, FRAME_INTERPRETED);
	cr_assert(name_is(&p, "Klass#run (app.rb)"));
	p = parts(fname("Klass::run (index.php:12)", FRAME_SUFFIX_PHP));
	cr_assert_eq(p.kind, FRAME_INTERPRETED);
	cr_assert(name_is(&p, "Klass::run (index.php:12)"));
	p = parts(fname("Pkg::run (job.pl)", FRAME_SUFFIX_PERL));
	cr_assert_eq(p.kind, FRAME_INTERPRETED);
	cr_assert(name_is(&p, "Pkg::run (job.pl)"));
	p = parts(fname("[kernel]", FRAME_SUFFIX_KERNEL));
	cr_assert_eq(p.kind, FRAME_KERNEL);
	cr_assert(name_is(&p, "[kernel]"));
	p = parts(module_name("/usr/lib/libfoo.so.1"));
	cr_assert_eq(p.kind, FRAME_BRACKETED);
	cr_assert(module_is(&p, "libfoo.so.1"));
	cr_assert(name_is(&p, "[libfoo.so.1]"));
	p = parts(module_name(NULL));
	cr_assert_eq(p.kind, FRAME_UNKNOWN_CODE);
	p = parts(fname("main", ""));
	cr_assert_eq(p.kind, FRAME_FUNCTION);
	cr_assert(name_is(&p, "main"));
	cr_assert_null(p.module);
}

Test(frame_name, parse_module_offsets_and_edge_cases)
{
	struct frame_parts p;

	p = parts("libfoo.so+0x1a2B");
	cr_assert_eq(p.kind, FRAME_MODULE_OFFSET);
	cr_assert(module_is(&p, "libfoo.so"));
	cr_assert(name_is(&p, "libfoo.so+0x1a2B"), "the whole text stays the function");
	cr_assert_eq(parts("a+b+0x10").kind, FRAME_MODULE_OFFSET);
	cr_assert_eq(parts("+0x10").kind, FRAME_FUNCTION, "no module");
	cr_assert_eq(parts("libfoo+0x").kind, FRAME_FUNCTION, "no digits");
	cr_assert_eq(parts("libfoo+0x12g").kind, FRAME_FUNCTION, "not hex");
	cr_assert_eq(parts("[kernel]").kind, FRAME_KERNEL);
	cr_assert_eq(parts("[unknown]").kind, FRAME_UNKNOWN_CODE);
	cr_assert_eq(parts("").kind, FRAME_UNKNOWN_CODE);
	p = parts(NULL);
	cr_assert_eq(p.kind, FRAME_UNKNOWN_CODE);
	cr_assert(name_is(&p, "[unknown]"));
	cr_assert_eq(parts("[truncated]").kind, FRAME_BRACKETED);
	cr_assert_eq(parts("[]").kind, FRAME_FUNCTION, "empty brackets are no module");
	cr_assert_eq(parts("_[k]").kind, FRAME_KERNEL, "a bare suffix is still the kernel's");
	cr_assert_eq(parts("_[k]").name_len, 0);
}

static int place_is(const struct frame_parts *p, const char *func, const char *file, unsigned line)
{
	if (p->func_len != strlen(func) || memcmp(p->name, func, p->func_len) != 0)
		return 0;
	if (!file)
		return p->file == NULL && p->line == 0;
	return p->file && p->file_len == strlen(file) && !memcmp(p->file, file, p->file_len) && p->line == line;
}

/* A name's place, " (FILE)" or " (FILE:LINE)", comes apart from the
 * function; a C++ name's own parentheses never pass for one. */
Test(frame_name, parse_places)
{
	struct frame_parts p;

	p = parts(fname("hot_loop (spin.c:42)", ""));
	cr_assert(place_is(&p, "hot_loop", "spin.c", 42));
	p = parts(fname("dot<double> (matrix.h:7)", FRAME_SUFFIX_INLINED));
	cr_assert(place_is(&p, "dot<double>", "matrix.h", 7));
	p = parts(fname("inner (app.py)", FRAME_SUFFIX_PYTHON));
	cr_assert(place_is(&p, "inner", "app.py", 0));
	p = parts(fname("Klass::run (/srv/a b/index.php:12)", FRAME_SUFFIX_PHP));
	cr_assert(place_is(&p, "Klass::run", "/srv/a b/index.php", 12));
	p = parts(fname("<module> (C:x.py:3)", FRAME_SUFFIX_PYTHON));
	cr_assert(place_is(&p, "<module>", "C:x.py", 3));
	p = parts(fname("f (x.c:12a)", ""));
	cr_assert(place_is(&p, "f", "x.c:12a", 0));
	/* no place */
	p = parts(fname("Foo::operator()", ""));
	cr_assert(place_is(&p, "Foo::operator()", NULL, 0));
	p = parts(fname("std::function<void (int)>::operator()", ""));
	cr_assert(place_is(&p, "std::function<void (int)>::operator()", NULL, 0));
	p = parts(fname("f(int) const", ""));
	cr_assert(place_is(&p, "f(int) const", NULL, 0));
	p = parts(fname("g ()", ""));
	cr_assert(place_is(&p, "g ()", NULL, 0));
	p = parts(fname("Kernel#require", FRAME_SUFFIX_RUBY));
	cr_assert(place_is(&p, "Kernel#require", NULL, 0));
	p = parts("libz.so.1+0x5d80");
	cr_assert_null(p.file);
	cr_assert_eq(p.start, 0x5d80, "a stripped function's start");
	p = parts("[truncated]");
	cr_assert_null(p.file);
}
