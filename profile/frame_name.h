/* The frame-name model, both ways: composing a frame's name from what a
 * symbol source knows (a raw name made safe for collapsed stacks: ';'
 * becomes ':', control characters and invalid bytes are dropped, length is
 * capped, in the middle and visibly; a suffix says where the frame comes
 * from), and parsing it back
 * for the encoders that show the origin (pprof mappings, flame graph
 * colours). One convention, written here only:
 *
 *   NAME_[k]        kernel function          [kernel]_[k], [kernel]: kernel code unnamed
 *   NAME_[i]        inlined into the frame below it
 *   NAME (FILE:LINE) any function's name may end in where it runs: its
 *                   file, and the line with --lines (the leaf's line,
 *                   a caller's call)
 *   NAME_[j]        JIT code (perf map, jitdump, a JVM's compiled code)
 *   NAME_[0]        a method a bytecode interpreter runs (HotSpot)
 *   NAME_[py]       a Python function CPython runs: "qualname (file.py)"
 *   NAME_[rb]       a Ruby method CRuby runs: "Class#method (file.rb)", a
 *                   C method "Class#method"
 *   NAME_[php]      a PHP function the Zend engine runs: "Class::method (file.php)"
 *   NAME_[pl]       a Perl sub perl runs: "Package::sub (file.pl)"
 *   MODULE+0xHEX    a function of MODULE without a name (stripped binary)
 *   [MODULE]        code of MODULE nothing names; [unknown], [truncated],
 *                   [signal] are markers of the unwinder
 *   NAME            a function */
#ifndef SMOLDER_PROFILE_FRAME_NAME_H
#define SMOLDER_PROFILE_FRAME_NAME_H
#include <stddef.h>
#include <stdint.h>

struct strtab;

/* Names are kept whole up to this many bytes: the longest template
 * instantiations of real C++ (Boost, Eigen, HotSpot's C2) stay far below.
 * A longer one is cut in the middle, marked with FRAME_NAME_CUT, and
 * counted (frame_name__cuts): never silently. */
#define FRAME_NAME_MAX (16 * 1024)
#define FRAME_NAME_CUT "\xe2\x80\xa6" /* U+2026, which no mangling produces */

#define FRAME_SUFFIX_KERNEL "_[k]"
#define FRAME_SUFFIX_INLINED "_[i]"
#define FRAME_SUFFIX_JIT "_[j]"
#define FRAME_SUFFIX_INTERPRETED "_[0]"
#define FRAME_SUFFIX_PYTHON "_[py]"
#define FRAME_SUFFIX_RUBY "_[rb]"
#define FRAME_SUFFIX_PHP "_[php]"
#define FRAME_SUFFIX_PERL "_[pl]"
#define FRAME_UNKNOWN "[unknown]"
/* The root of a stack whose unwinding stopped before its outermost frame. */
#define FRAME_TRUNCATED "[truncated]"

enum frame_kind {
	FRAME_FUNCTION,       /* NAME */
	FRAME_KERNEL,         /* NAME_[k] or [kernel] */
	FRAME_INLINED,        /* NAME_[i] */
	FRAME_JIT,            /* NAME_[j] */
	FRAME_INTERPRETED,    /* NAME_[0], NAME_[py], NAME_[rb], NAME_[php], NAME_[pl] */
	FRAME_MODULE_OFFSET,  /* MODULE+0xHEX */
	FRAME_BRACKETED,      /* [MODULE] or a marker, but not [unknown] */
	FRAME_UNKNOWN_CODE,   /* [unknown] */
};

/* A frame name taken apart; the strings point into the parsed name. */
struct frame_parts {
	enum frame_kind kind;
	const char *name;   /* the function without its suffix; the whole name
			     * for the other kinds */
	size_t name_len;
	const char *module; /* FRAME_MODULE_OFFSET: MODULE; FRAME_BRACKETED:
			     * inside the brackets; else NULL */
	size_t module_len;
	uint64_t start;     /* FRAME_MODULE_OFFSET: HEX, the function's start */
	/* A function's name may end in its place, " (FILE)" or " (FILE:LINE)"
	 * (interpreters always, native, Go and Java frames with --lines):
	 * func_len is the name without it; file is NULL when there is none,
	 * line 0 when it gives no line. */
	size_t func_len;
	const char *file;
	size_t file_len;
	unsigned line;
};

/* Interns sanitize(name) + suffix (suffix may be "" or e.g. "_[k]"). */
int frame_name__intern(struct strtab *names, const char *name, const char *suffix, uint32_t *id);
/* Names cut to FRAME_NAME_MAX since start (all threads). */
uint64_t frame_name__cuts(void);
/* Interns "[module]", the frame for a pc of a module that nothing names.
 * module may be a path (its last component is used); NULL or empty gives
 * "[unknown]". */
int frame_name__module(struct strtab *names, const char *module, uint32_t *id);

/* Takes apart a name that frame_name__intern/__module composed (any other
 * text is a FRAME_FUNCTION). NULL or "" is FRAME_UNKNOWN_CODE. */
void frame_name__parse(const char *s, struct frame_parts *out);

#endif
