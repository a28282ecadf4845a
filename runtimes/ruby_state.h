/* The inside of struct ruby: what every file of the Ruby reader reads (the
 * VM's layout and memory, set at open), a pointer to ruby_names.c's state,
 * and the control frames a walk read, handed from ruby.c to
 * ruby_names.c. For ruby.c and ruby_names.c; not for other files. Not
 * thread-safe, as the reader. */
#ifndef SMOLDER_RUNTIMES_RUBY_STATE_H
#define SMOLDER_RUNTIMES_RUBY_STATE_H
#include <stdbool.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/ruby.h"

struct ruby_batch;
struct ruby_names;
struct ruby_objects;
struct u64map;

/* Bounds on what hostile memory can make the reader hold or walk. */
#define RUBY_MAX_THREADS 4096
#define RUBY_MAX_RACTORS 256
/* Levels of a block's environment looked through for its method entry. */
#define RUBY_ENV_LEVELS 8
/* Frames read at once: the stack's innermost, and its two dummy roots. */
#define RUBY_WALK_FRAMES (RUBY_MAX_FRAMES + 2)
/* The most of a string read, of a method entry, of an iseq body. */
#define RUBY_STR_MAX 256
#define RUBY_ME_HEAD 40
#define RUBY_BODY_HEAD_MAX 256

/* What a control frame is. */
enum ruby_frame_kind {
	RUBY_FRAME_SKIP = 0, /* the VM's dummy frames, C blocks, unreadable */
	RUBY_FRAME_ISEQ,     /* a method, block, class body, script... */
	RUBY_FRAME_CFUNC,    /* a method written in C */
};

/* A control frame as the walk read it. */
struct ruby_raw_frame {
	uint64_t addr, pc, iseq, ep;
	uint64_t flags;   /* ep[0] (2.4+), the frame's flag (2.0) */
	/* where its method entry may be: ep[-2] of its environment and of
	 * the environments it was created in, innermost first (2.0: the
	 * frame's me); only the last, at a local environment, may be an svar
	 * holding it */
	uint64_t me_cand[RUBY_ENV_LEVELS];
	uint8_t ncand;
	bool local;       /* the last candidate is a local environment's */
	uint8_t kind;     /* enum ruby_frame_kind */
};

/* A thread's head, context and frames, read at once (ruby.c). */
#define RUBY_THREAD_HEAD_MAX 256
struct thread_read {
	uint8_t head[RUBY_THREAD_HEAD_MAX];
	uint8_t ec[24];
	uint32_t tid;
	uint64_t frames_at;  /* where the frames read begin, 0: none read */
	bool head_ok, ec_ok, tid_ok, frames_ok;
};

struct ruby {
	/* set by ruby__open, read by every file */
	struct memsource mem;
	struct ruby_layout l;
	struct ruby_symbols sym;
	struct strtab *names;      /* borrowed; replaced when compacted */
	bool lines;
	/* the other files' state, created and deleted by ruby.c */
	struct ruby_names *codes;     /* ruby_names.c: sequences, method entries */
	struct ruby_objects *objects; /* ruby_objects.c: IDs, the symbol table */
	struct ruby_batch *batch;     /* ruby_batch.c: a sample's reads */
	/* ruby.c's own */
	struct u64map *thread_by_tid; /* tid -> rb_thread_t address */
	struct u64map *id_by_tid;     /* tid -> its pthread_t or native thread */
	struct u64map *known;         /* rb_thread_t addresses mapped */
	/* what tid's last read found: read again with its thread */
	struct u64map *ec_by_tid, *end_by_tid, *depth_by_tid;
	uint64_t last_scan_ns, rescan_wait_ns;
	uint64_t failures;
	struct thread_read thread;                   /* the walk's thread */
	struct ruby_raw_frame raw[RUBY_WALK_FRAMES]; /* the walk's frames */
	uint8_t block[RUBY_WALK_FRAMES * 80];        /* their control frames */
};

static inline uint64_t ruby_state__u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint32_t ruby_state__u32_at(const uint8_t *b, uint32_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Pointers the reader follows: user-space, aligned, not NULL. */
static inline bool ruby_state__plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

/* What a frame is, from its flags. */
static inline uint8_t ruby_state__frame_kind(const struct ruby_layout *l, const struct ruby_raw_frame *f)
{
	uint64_t magic = f->flags & l->magic_mask;

	if (magic == l->magic_cfunc)
		return RUBY_FRAME_CFUNC;
	if (magic == l->magic_ifunc || magic == l->magic_dummy || !f->iseq || !f->pc)
		return RUBY_FRAME_SKIP;
	return RUBY_FRAME_ISEQ;
}

/* ruby_objects.c, for ruby_names.c: objects read (every one checked for
 * its type first); strings cut to size - 1 bytes. */
struct ruby_objects *ruby_objects__new(void);
void ruby_objects__delete(struct ruby_objects *o);
int ruby_objects__flags(struct ruby *r, uint64_t v, uint64_t *flags);
/* A String's text: its length, or -errno. */
int ruby_objects__string(struct ruby *r, uint64_t v, char *out, size_t size);
/* An instruction sequence's path (a String, 2.5+ possibly [path, realpath]). */
int ruby_objects__path(struct ruby *r, uint64_t pathobj, char *out, size_t size);
/* The part of a path that says which file it is (inside path). */
const char *ruby_objects__short_path(const char *path);
/* An ID's name (cached), NULL when the symbol table is not found. */
const char *ruby_objects__id_name(struct ruby *r, uint64_t id);
/* "Class#" for a method of class klass, "Class." of its singleton class
 * (malloc'd), NULL when the class cannot be named. */
char *ruby_objects__qualifier(struct ruby *r, uint64_t klass);
char *ruby_objects__dup(const char *s);

/* ruby_batch.c, for ruby_names.c: what each frame of a sample points to,
 * read in as few calls as it takes (2.4+: environments filling in
 * raw[].flags, kind and method entry candidates). */
struct ruby_frame_read {
	uint64_t body, me;                 /* 0: none read */
	const uint8_t *body_head, *me_head; /* valid until the next sample */
};
struct ruby_batch *ruby_batch__new(void);
void ruby_batch__delete(struct ruby_batch *b);
void ruby_batch__read(struct ruby *r, struct ruby_raw_frame *raw, size_t nf, struct ruby_frame_read *out);

/* ruby_names.c, for ruby_batch.c: the body an instruction sequence had
 * when last named, 0. */
uint64_t ruby_names__known_body(struct ruby *r, uint64_t iseq);

/* ruby_names.c, for ruby.c */
struct ruby_names *ruby_names__new(bool lines);
void ruby_names__delete(struct ruby_names *n);
/* Names the n raw frames (innermost first: addr, pc, iseq, ep; 2.0 also
 * flags and me) into out, reading what their names need: 2.4+ their
 * environments (flags, method entries), their instruction sequences and
 * method entries validated at every use, what is new read and named once.
 * Frames it cannot name are left out. Returns 0 or -errno (a read failing
 * is a frame left out, not an error). */
int ruby_names__name(struct ruby *r, struct ruby_raw_frame *raw, size_t n, struct ruby_stack *out);
int ruby_names__remap(struct ruby *r, struct strtab_remap *rm);

#endif
