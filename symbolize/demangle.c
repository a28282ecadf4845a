/* Demangling through libiberty when the build has it, libstdc++ otherwise;
 * and the short form of a demangled name. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBIBERTY
#ifdef HAVE_LIBIBERTY_DEMANGLE_H
#include <libiberty/demangle.h>
#else
#include <demangle.h>
#endif
#endif

#include "symbolize/demangle.h"

int name_detail__parse(const char *s, enum name_detail *out)
{
	if (s && !strcmp(s, "short"))
		*out = NAME_DETAIL_SHORT;
	else if (s && !strcmp(s, "full"))
		*out = NAME_DETAIL_FULL;
	else
		return -1;
	return 0;
}

const char *name_detail__name(enum name_detail d)
{
	return d == NAME_DETAIL_FULL ? "full" : "short";
}

/* The grammars smolder asks a demangler about. */
static int looks_mangled(const char *name)
{
	return name[0] == '_' &&
	       (name[1] == 'Z' || name[1] == 'R' || (name[1] == 'D' && name[2] >= '1' && name[2] <= '9'));
}

#ifdef HAVE_LIBIBERTY

/* The demangled text, grown as libiberty's callback hands it over. The
 * callback demanglers allocate nothing of their own (their work space is
 * on the stack), so leaving them by longjmp when the text outgrows its
 * bound leaks nothing. */
struct grow {
	char *s;
	size_t len, cap;
	jmp_buf abandon;
};

static void grow_put(const char *piece, size_t n, void *opaque)
{
	struct grow *g = opaque;

	if (n > DEMANGLE_OUTPUT_MAX - g->len)
		longjmp(g->abandon, 1);
	if (g->len + n + 1 > g->cap) {
		size_t cap = g->cap ? g->cap : 256;
		char *s;

		while (cap < g->len + n + 1)
			cap *= 2;
		s = realloc(g->s, cap);
		if (!s)
			longjmp(g->abandon, 1);
		g->s = s;
		g->cap = cap;
	}
	memcpy(g->s + g->len, piece, n);
	g->len += n;
	g->s[g->len] = '\0';
}

typedef int (*callback_demangler)(const char *, int, demangle_callbackref, void *);

static char *run(callback_demangler fn, const char *name, int options)
{
	/* On the heap: only the pointer lives across setjmp, and it does not
	 * change (what longjmp leaves of locals changed since is unspecified). */
	struct grow *g = calloc(1, sizeof(*g));
	char *r = NULL;

	if (!g)
		return NULL;
	if (setjmp(g->abandon) == 0 && fn(name, options, grow_put, g) && g->len)
		r = g->s;
	else
		free(g->s);
	free(g);
	return r;
}

/* libiberty refuses C++ names of more than 1024 bytes unless its
 * recursion limit is lifted, and long template instantiations are longer
 * (its num_comps = 2 * length must stay under DEMANGLE_RECURSION_LIMIT).
 * Lifted, the demangler's recursion and work arrays grow with the input:
 * such names are demangled on a thread of their own whose stack bounds
 * them (DEMANGLE_INPUT_MAX bytes need a few MiB at most). They are rare
 * and demangled once per symbol. */
#define SHORT_NAME_MAX 1000
#define DEEP_STACK_BYTES (64u << 20)

struct deep_job {
	const char *name;
	int options;
	char *result;
};

static void *deep_main(void *arg)
{
	struct deep_job *j = arg;

	j->result = run(cplus_demangle_v3_callback, j->name, j->options | DMGL_NO_RECURSE_LIMIT);
	return NULL;
}

static char *run_cxx(const char *name, int options)
{
	struct deep_job j = { name, options, NULL };
	pthread_attr_t a;
	pthread_t t;

	if (strlen(name) <= SHORT_NAME_MAX)
		return run(cplus_demangle_v3_callback, name, options);
	if (pthread_attr_init(&a) != 0)
		return NULL;
	if (pthread_attr_setstacksize(&a, DEEP_STACK_BYTES) == 0 &&
	    pthread_create(&t, &a, deep_main, &j) == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&a);
	return j.result;
}

static char *demangle_full(const char *name, int options)
{
	char *r;

	if (name[1] == 'D') {
		/* D has no callback entry point; its demangler allocates, so its
		 * output is bounded by the input's length instead. */
		if (strlen(name) > 1024)
			return NULL;
		return cplus_demangle(name, DMGL_DLANG | (options & DMGL_PARAMS));
	}
	/* Rust first: legacy Rust names are valid C++ names too, whose last
	 * component is the crate hash. Without DMGL_VERBOSE the hash (legacy)
	 * and the crate disambiguators (v0) are left out, so that rebuilds
	 * aggregate together. */
	r = run(rust_demangle_callback, name, options);
	if (!r && name[1] == 'Z')
		r = run_cxx(name, options);
	return r;
}

char *demangle(const char *name, enum name_detail detail)
{
	char *r;

	if (!name || !looks_mangled(name) || strnlen(name, DEMANGLE_INPUT_MAX + 1) > DEMANGLE_INPUT_MAX)
		return NULL;
	/* Short: no parameters from the demangler itself (it also drops the
	 * return type of template functions), the rest below. */
	r = demangle_full(name, detail == NAME_DETAIL_FULL ? DMGL_PARAMS | DMGL_ANSI : 0);
	if (r && detail == NAME_DETAIL_SHORT)
		demangle__shorten(r);
	return r;
}

const char *demangle__engine(void)
{
	static const char v0[] = "_RNvNtCs1234_7mycrate5outer5inner";
	char *r = demangle(v0, NAME_DETAIL_FULL);
	int rust_v0 = r && !strcmp(r, "mycrate::outer::inner");

	free(r);
	return rust_v0 ? "libiberty (C++, Rust legacy and v0, D)"
		       : "libiberty (C++, Rust legacy, D; this version leaves Rust v0 raw)";
}

#else /* !HAVE_LIBIBERTY */

char *demangle(const char *name, enum name_detail detail)
{
	char *r;

	if (!name || !looks_mangled(name) || name[1] != 'Z')
		return NULL;
	r = demangle__cxxabi(name);
	if (r && detail == NAME_DETAIL_SHORT)
		demangle__shorten(r);
	return r;
}

const char *demangle__engine(void)
{
	return "libstdc++ __cxa_demangle (C++, Rust legacy; Rust v0 and D stay raw: "
	       "build with libiberty for them)";
}

#endif
