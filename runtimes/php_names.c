/* PHP functions named: "Class::method (file.php)", cached by what
 * identifies them (runtimes/php.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/php.h"

/* The cache: direct-mapped, so hostile memory can make it hold no more
 * than this many names, and a miss costs one slot. */
#define SLOTS 4096
/* Strings read at most this long: a longer name is cut (and says so). */
#define STR_MAX 256

struct slot {
	struct php_fn key;
	uint32_t id; /* 0: empty */
};

struct php_names {
	struct slot s[SLOTS];
};

struct php_names *php_names__new(void)
{
	return calloc(1, sizeof(struct php_names));
}

void php_names__delete(struct php_names *n)
{
	free(n);
}

static size_t slot_of(const struct php_fn *fn)
{
	uint64_t h = fn->func * 0x9e3779b97f4a7c15ull;

	h ^= fn->line * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (size_t)(h % SLOTS);
}

/* A zend_string at addr into buf (NUL-terminated, cut at size - 1 with
 * `cut` set): its length from its head, its bytes after it. */
static int read_zstr(struct memsource *m, const struct php_layout *l, uint64_t addr, char *buf,
		     size_t size, bool *cut)
{
	uint64_t len;
	int err;

	buf[0] = 0;
	*cut = false;
	if (addr < 4096 || addr >= (1ull << 47) || (addr & 7))
		return -EPROTO;
	err = memsource__u64(m, addr + l->str_len, &len);
	if (err)
		return err;
	if (len >= size) {
		len = size - 1;
		*cut = true;
	}
	if (len && (err = memsource__read(m, addr + l->str_val, buf, (size_t)len)) != 0)
		return err;
	buf[len] = 0;
	/* a name holds no NUL: one that does is no zend_string's */
	return strlen(buf) == len ? 0 : -EPROTO;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The function's name as PHP's backtraces say it, with its file. */
static int compose(struct memsource *m, const struct php_layout *l, const struct php_fn *fn,
		   char *out, size_t size)
{
	char name[STR_MAX], cls[STR_MAX], file[STR_MAX];
	uint64_t ce_name;
	bool cut_name = false, cut_cls = false, cut_file = false;
	int err;

	name[0] = cls[0] = file[0] = 0;
	if (fn->name_ptr && (err = read_zstr(m, l, fn->name_ptr, name, sizeof(name), &cut_name)) != 0)
		return err;
	if (fn->scope) {
		if (fn->scope < 4096 || fn->scope >= (1ull << 47) || (fn->scope & 7) ||
		    memsource__u64(m, fn->scope + l->ce_name, &ce_name) != 0 ||
		    read_zstr(m, l, ce_name, cls, sizeof(cls), &cut_cls) != 0)
			return -EPROTO;
	}
	if (fn->type != PHP_INTERNAL_FUNCTION &&
	    (err = read_zstr(m, l, fn->file_ptr, file, sizeof(file), &cut_file)) != 0)
		return err;
	if (!name[0])
		snprintf(name, sizeof(name), "%s", fn->type == PHP_EVAL_CODE ? "{eval}" : "{main}");
	if (fn->type == PHP_INTERNAL_FUNCTION)
		snprintf(out, size, "%s%s%s%s", cls, cls[0] ? "::" : "", name, cut_name ? "..." : "");
	else if (fn->line)
		snprintf(out, size, "%s%s%s%s (%s%s:%u)", cls, cls[0] ? "::" : "", name,
			 cut_name || cut_cls ? "..." : "", base_name(file), cut_file ? "..." : "",
			 fn->line);
	else
		snprintf(out, size, "%s%s%s%s (%s%s)", cls, cls[0] ? "::" : "", name,
			 cut_name || cut_cls ? "..." : "", base_name(file), cut_file ? "..." : "");
	return 0;
}

int php_names__name(struct php_names *n, struct memsource *m, const struct php_layout *l,
		    struct strtab *names, struct ledger *ledger, const struct php_fn *fn,
		    uint32_t *id)
{
	struct slot *s = &n->s[slot_of(fn)];
	char full[3 * STR_MAX + 32];
	int err;

	if (s->id && memcmp(&s->key, fn, sizeof(*fn)) == 0) {
		*id = s->id;
		return 0;
	}
	err = compose(m, l, fn, full, sizeof(full));
	if (!err)
		err = ledger__intern_frame(ledger, names, full, FRAME_SUFFIX_PHP, id);
	if (err)
		return err;
	s->key = *fn;
	s->id = *id;
	return 0;
}

int php_names__remap(struct php_names *n, struct strtab_remap *r)
{
	size_t i;

	for (i = 0; i < SLOTS; i++)
		if (n->s[i].id && strtab_remap__id(r, &n->s[i].id))
			return -ENOMEM;
	return 0;
}
