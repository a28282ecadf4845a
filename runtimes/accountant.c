/* Budgets of what runtime readers do, per process and per user. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"

/* The pace of reads and time: a second of the caller's clock. */
struct pace {
	uint64_t second; /* now_ns / 1e9 of the count */
	uint64_t reads;  /* reads made in that second */
	uint64_t cpu_ns; /* time readers spent in it */
};

struct account {
	uid_t uid;
	unsigned ledgers;         /* live ledgers charging it */
	struct pace pace;
	uint64_t names, name_bytes; /* of the window */
};

struct ledger {
	struct accountant *owner;
	struct account *acct;
	bool reader;             /* counted in the account's ledgers */
	struct pace pace;
	struct ledger_stats st;
};

struct accountant {
	struct accountant_limits lim;
	struct strtab *names;
	uint32_t marker;
	struct u64map *by_uid;     /* uid -> struct account * */
	struct account overflow;   /* users past ACCOUNTANT_MAX_USERS */
	struct pace users;         /* of all users but root */
	uint64_t cpu_ns;           /* charged to any ledger, since made */
};

struct accountant *accountant__new(const struct accountant_limits *limits, struct strtab *names)
{
	struct accountant *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (limits) {
		a->lim = *limits;
	} else {
		a->lim.process_reads_per_sec = ACCOUNTANT_PROCESS_READS_PER_SEC;
		a->lim.user_reads_per_sec = ACCOUNTANT_USER_READS_PER_SEC;
		a->lim.user_names_per_window = ACCOUNTANT_USER_NAMES_PER_WINDOW;
		a->lim.user_name_bytes_per_window = ACCOUNTANT_USER_NAME_BYTES_PER_WINDOW;
		a->lim.user_cpu_ns_per_sec = ACCOUNTANT_USER_CPU_NS_PER_SEC;
		a->lim.users_cpu_ns_per_sec = ACCOUNTANT_USERS_CPU_NS_PER_SEC;
		a->lim.user_readers = ACCOUNTANT_USER_READERS;
	}
	a->names = names;
	a->overflow.uid = (uid_t)-1;
	a->by_uid = u64map__new(16);
	if (!a->by_uid || strtab__intern_cstr(names, ACCOUNTANT_NAMES_MARKER, &a->marker) < 0) {
		accountant__delete(a);
		return NULL;
	}
	return a;
}

void accountant__delete(struct accountant *a)
{
	size_t pos = 0;
	uint64_t uid, v;

	if (!a)
		return;
	while (a->by_uid && u64map__next(a->by_uid, &pos, &uid, &v))
		free((struct account *)(uintptr_t)v);
	u64map__delete(a->by_uid);
	free(a);
}

void accountant__new_window(struct accountant *a)
{
	size_t pos = 0;
	uint64_t uid, v;

	while (u64map__next(a->by_uid, &pos, &uid, &v)) {
		struct account *acct = (struct account *)(uintptr_t)v;

		acct->names = acct->name_bytes = 0;
	}
	a->overflow.names = a->overflow.name_bytes = 0;
}

int accountant__remap_names(struct accountant *a, struct strtab_remap *r)
{
	if (r->commit)
		a->names = r->to;
	return strtab_remap__id(r, &a->marker);
}

static struct account *account_of(struct accountant *a, uid_t uid)
{
	uint64_t v;
	struct account *acct;

	if (u64map__get(a->by_uid, (uint64_t)uid, &v))
		return (struct account *)(uintptr_t)v;
	if (u64map__count(a->by_uid) >= ACCOUNTANT_MAX_USERS)
		return &a->overflow;
	acct = calloc(1, sizeof(*acct));
	if (!acct)
		return NULL;
	acct->uid = uid;
	if (u64map__put(a->by_uid, (uint64_t)uid, (uint64_t)(uintptr_t)acct) != 0) {
		free(acct);
		return NULL;
	}
	return acct;
}

const struct accountant_limits *accountant__limits(const struct accountant *a)
{
	return &a->lim;
}

static int open_ledger(struct accountant *a, uid_t uid, bool reader, struct ledger **out)
{
	struct account *acct = account_of(a, uid);
	struct ledger *l;

	if (!acct)
		return -ENOMEM;
	/* 0 means no bound, for limits given by tests */
	if (reader && uid != 0 && a->lim.user_readers && acct->ledgers >= a->lim.user_readers)
		return -EDQUOT;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->owner = a;
	l->acct = acct;
	l->reader = reader;
	acct->ledgers += reader;
	*out = l;
	return 0;
}

int accountant__ledger(struct accountant *a, uid_t uid, struct ledger **out)
{
	return open_ledger(a, uid, true, out);
}

int accountant__copy_ledger(struct accountant *a, uid_t uid, struct ledger **out)
{
	return open_ledger(a, uid, false, out);
}

void ledger__delete(struct ledger *l)
{
	if (!l)
		return;
	l->acct->ledgers -= l->reader;
	free(l);
}

static void roll(struct pace *p, uint64_t now_ns)
{
	uint64_t second = now_ns / 1000000000ull;

	if (second != p->second) {
		p->second = second;
		p->reads = 0;
		p->cpu_ns = 0;
	}
}

static bool is_root(const struct account *acct)
{
	return acct->uid == 0;
}

bool ledger__may_read(struct ledger *l, uint64_t now_ns)
{
	const struct accountant_limits *lim;

	if (!l)
		return true;
	lim = &l->owner->lim;
	roll(&l->pace, now_ns);
	roll(&l->acct->pace, now_ns);
	roll(&l->owner->users, now_ns);
	if (l->pace.reads >= lim->process_reads_per_sec ||
	    (!is_root(l->acct) && (l->acct->pace.reads >= lim->user_reads_per_sec ||
				   (lim->user_cpu_ns_per_sec &&
				    l->acct->pace.cpu_ns >= lim->user_cpu_ns_per_sec) ||
				   (lim->users_cpu_ns_per_sec &&
				    l->owner->users.cpu_ns >= lim->users_cpu_ns_per_sec)))) {
		l->st.refused_reads++;
		return false;
	}
	return true;
}

void ledger__charge_read(struct ledger *l, size_t bytes)
{
	if (!l)
		return;
	l->pace.reads++;
	l->acct->pace.reads++;
	l->st.reads++;
	l->st.bytes += bytes;
}

void ledger__charge_copy(struct ledger *l, size_t bytes)
{
	uint64_t weight = 1 + (bytes + ACCOUNTANT_COPY_BYTES_PER_READ - 1) / ACCOUNTANT_COPY_BYTES_PER_READ;

	if (!l)
		return;
	l->pace.reads += weight;
	l->acct->pace.reads += weight;
	l->st.reads++;
	l->st.bytes += bytes;
}

uint64_t accountant__cpu_ns(const struct accountant *a)
{
	return a ? a->cpu_ns : 0;
}

void ledger__charge_cpu(struct ledger *l, uint64_t ns)
{
	if (!l)
		return;
	l->st.cpu_ns += ns;
	l->owner->cpu_ns += ns;
	l->pace.cpu_ns += ns;
	l->acct->pace.cpu_ns += ns;
	if (!is_root(l->acct))
		l->owner->users.cpu_ns += ns;
}

int ledger__intern_frame(struct ledger *l, struct strtab *names, const char *name,
			 const char *suffix, uint32_t *id)
{
	const struct accountant_limits *lim;
	size_t count;
	int err;

	if (!l)
		return frame_name__intern(names, name, suffix, id);
	lim = &l->owner->lim;
	if (!is_root(l->acct) && (l->acct->names >= lim->user_names_per_window ||
				  l->acct->name_bytes >= lim->user_name_bytes_per_window)) {
		l->st.refused_names++;
		*id = l->owner->marker;
		return 0;
	}
	count = strtab__count(names);
	err = frame_name__intern(names, name, suffix, id);
	if (err)
		return err;
	if (strtab__count(names) > count) {
		/* the string and its share of the index and the arena */
		size_t grew = strtab__len(names, *id) + STRTAB_ENTRY_OVERHEAD;

		l->acct->names++;
		l->acct->name_bytes += grew;
		l->st.names++;
		l->st.name_bytes += grew;
	}
	return 0;
}

void ledger__stats(const struct ledger *l, struct ledger_stats *out)
{
	if (l)
		*out = l->st;
	else
		memset(out, 0, sizeof(*out));
}
