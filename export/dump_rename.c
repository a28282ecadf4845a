/* A dump document written again with its frames renamed (dump_rename.h):
 * its JSON tree copied, each profile's stacks rebuilt. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/strtab.h"
#include "export/dump_read.h"
#include "export/dump_rename.h"

struct stack_sum {
	uint32_t id;    /* the stack in the table */
	uint64_t count;
};

struct rebuild {
	dump_rename_fn rename;
	void *ctx;
	struct strtab *stacks; /* the profile's new stacks, ids in order */
	struct stack_sum *sums;
	size_t nsums, cap;
	char *buf;             /* a stack being renamed */
	size_t buf_cap;
	long renamed;
};

static int append(struct rebuild *r, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > r->buf_cap) {
		size_t cap = r->buf_cap ? 2 * r->buf_cap : 1024;
		char *grown;

		while (cap < *len + n + 1)
			cap *= 2;
		if (!(grown = realloc(r->buf, cap)))
			return -ENOMEM;
		r->buf = grown;
		r->buf_cap = cap;
	}
	memcpy(r->buf + *len, s, n);
	*len += n;
	r->buf[*len] = '\0';
	return 0;
}

/* stack with its frames renamed, into r->buf; its length, or -ENOMEM. */
static long rename_stack(struct rebuild *r, const char *stack)
{
	size_t len = 0;

	for (;;) {
		const char *end = strchr(stack, ';');
		size_t n = end ? (size_t)(end - stack) : strlen(stack);
		const char *to = r->rename(r->ctx, stack, n);

		if (to)
			r->renamed++;
		if (append(r, &len, to ? to : stack, to ? strlen(to) : n) < 0 ||
		    (end && append(r, &len, ";", 1) < 0))
			return -ENOMEM;
		if (!end)
			return (long)len;
		stack = end + 1;
	}
}

/* Table ids are given in order, from 1, one per new stack: a stack's sum
 * is sums[id - 1]. */
static int add_sum(struct rebuild *r, uint32_t id, uint64_t count)
{
	if (id - 1 < r->nsums) {
		r->sums[id - 1].count += count;
		return 0;
	}
	if (r->nsums == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct stack_sum *grown = realloc(r->sums, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->sums = grown;
		r->cap = cap;
	}
	r->sums[r->nsums].id = id;
	r->sums[r->nsums++].count = count;
	return 0;
}

static int cmp_sum(const void *a, const void *b, void *table)
{
	const struct stack_sum *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(strtab__str(table, x->id), strtab__str(table, y->id));
}

/* One profile's "stacks" rebuilt in place. */
static int rebuild_profile(struct rebuild *r, json_t *prof)
{
	json_t *stacks = json_object_get(prof, "stacks"), *st, *fresh;
	size_t i;

	r->nsums = 0;
	strtab__delete(r->stacks);
	if (!(r->stacks = strtab__new()))
		return -ENOMEM;
	json_array_foreach(stacks, i, st) {
		const char *s = json_string_value(json_object_get(st, "stack"));
		json_int_t count = json_integer_value(json_object_get(st, "count"));
		uint32_t id;
		long n;

		if (!s || (n = rename_stack(r, s)) < 0 ||
		    strtab__intern(r->stacks, r->buf, (size_t)n, &id) != 0 || add_sum(r, id, (uint64_t)count) < 0)
			return -ENOMEM;
	}
	qsort_r(r->sums, r->nsums, sizeof(*r->sums), cmp_sum, r->stacks);
	fresh = json_array();
	for (i = 0; fresh && i < r->nsums; i++) {
		json_t *o = json_object();

		if (!o || json_array_append_new(fresh, o) != 0 ||
		    json_object_set_new(o, "stack", json_stringn(strtab__str(r->stacks, r->sums[i].id),
								 strtab__len(r->stacks, r->sums[i].id))) != 0 ||
		    json_object_set_new(o, "count", json_integer((json_int_t)r->sums[i].count)) != 0) {
			json_decref(fresh);
			return -ENOMEM;
		}
	}
	return fresh && json_object_set_new(prof, "stacks", fresh) == 0 ? 0 : -ENOMEM;
}

long dump_rename__document(const struct dump *d, dump_rename_fn rename, void *ctx, char **out, size_t *len)
{
	struct rebuild r = { rename, ctx, NULL, NULL, 0, 0, NULL, 0, 0 };
	json_t *root = json_deep_copy((json_t *)(uintptr_t)dump__json(d)), *prof;
	char *text = NULL;
	size_t i, n;
	long rc = -ENOMEM;

	if (!root)
		goto out;
	json_array_foreach(json_object_get(root, "profiles"), i, prof)
		if (rebuild_profile(&r, prof) < 0)
			goto out;
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		goto out;
	n = strlen(text);
	*out = realloc(text, n + 2);
	if (!*out)
		goto out;
	text = NULL;
	(*out)[n] = '\n';
	(*out)[n + 1] = '\0';
	*len = n + 1;
	rc = r.renamed;
out:
	free(text);
	free(r.buf);
	free(r.sums);
	strtab__delete(r.stacks);
	json_decref(root);
	return rc;
}
