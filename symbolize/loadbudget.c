/* Bytes and time the debug data of users' binaries may take. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "common/u64map.h"
#include "symbolize/loadbudget.h"

struct loadbudget {
	uint64_t max_bytes, user_share;
	uint64_t bytes;
	struct u64map *by_owner; /* uid -> bytes reserved */
	unsigned load_ppm;
	int64_t tokens_ns;       /* CPU time loads may still take */
	uint64_t last_refill_ns;
	/* each user's own bucket (int64 tokens) and when it was last drawn
	 * on; users absent have a full one */
	struct u64map *owner_tokens, *owner_refill;
	uint64_t refused_bytes, refused_time;
};

int loadbudget__new(uint64_t max_bytes, unsigned load_ppm, struct loadbudget **out)
{
	struct loadbudget *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->max_bytes = max_bytes ? max_bytes : LOADBUDGET_DEFAULT_BYTES;
	b->user_share = b->max_bytes / 4;
	b->load_ppm = load_ppm ? load_ppm : LOADBUDGET_DEFAULT_LOAD_PPM;
	b->tokens_ns = (int64_t)LOADBUDGET_BURST_NS;
	b->by_owner = u64map__new(16);
	b->owner_tokens = u64map__new(16);
	b->owner_refill = u64map__new(16);
	if (!b->by_owner || !b->owner_tokens || !b->owner_refill) {
		loadbudget__delete(b);
		return -ENOMEM;
	}
	*out = b;
	return 0;
}

void loadbudget__delete(struct loadbudget *b)
{
	if (!b)
		return;
	u64map__delete(b->by_owner);
	u64map__delete(b->owner_tokens);
	u64map__delete(b->owner_refill);
	free(b);
}

uint64_t loadbudget__room(const struct loadbudget *b, uid_t owner)
{
	uint64_t room = b->max_bytes - b->bytes, mine = 0, share;

	/* root's files are the system's: they share the whole budget */
	if (owner != 0) {
		(void)u64map__get(b->by_owner, owner, &mine);
		share = mine < b->user_share ? b->user_share - mine : 0;
		if (share < room)
			room = share;
	}
	return room;
}

int loadbudget__charge(struct loadbudget *b, uid_t owner, uint64_t bytes)
{
	uint64_t mine = 0;

	if (bytes > loadbudget__room(b, owner))
		return -ENOSPC;
	(void)u64map__get(b->by_owner, owner, &mine);
	if (u64map__put(b->by_owner, owner, mine + bytes) < 0)
		return -ENOSPC;
	b->bytes += bytes;
	return 0;
}

void loadbudget__release(struct loadbudget *b, uid_t owner, uint64_t bytes)
{
	uint64_t mine = 0;

	(void)u64map__get(b->by_owner, owner, &mine);
	if (bytes > mine)
		bytes = mine;
	if (mine - bytes)
		(void)u64map__put(b->by_owner, owner, mine - bytes);
	else
		(void)u64map__del(b->by_owner, owner);
	b->bytes -= bytes < b->bytes ? bytes : b->bytes;
}

/* A bucket of CPU time: refills at ppm parts per million of wall time up
 * to burst; a load may start while it holds anything. */
static int64_t refilled(int64_t tokens, uint64_t last_ns, uint64_t now_ns, unsigned ppm,
			uint64_t burst)
{
	uint64_t dt = now_ns > last_ns ? now_ns - last_ns : 0;

	if (dt > burst * 1000)
		dt = burst * 1000; /* no overflow below */
	tokens += (int64_t)(dt / 1000000 * ppm);
	return tokens > (int64_t)burst ? (int64_t)burst : tokens;
}

/* The owner's own bucket as of now_ns: a quarter of the rate and burst for
 * each user but root, so that one user's loads cannot take all of the
 * global bucket. A full bucket is not stored: the maps hold only the users
 * who spent recently. */
static int64_t owner_tokens(struct loadbudget *b, uid_t owner, uint64_t now_ns)
{
	uint64_t tok, last;

	if (!u64map__get(b->owner_tokens, owner, &tok) || !u64map__get(b->owner_refill, owner, &last))
		return (int64_t)(LOADBUDGET_BURST_NS / 4);
	return refilled((int64_t)tok, last, now_ns, b->load_ppm / 4, LOADBUDGET_BURST_NS / 4);
}

int loadbudget__may_load(struct loadbudget *b, uid_t owner, uint64_t now_ns)
{
	if (b->last_refill_ns)
		b->tokens_ns = refilled(b->tokens_ns, b->last_refill_ns, now_ns, b->load_ppm,
					LOADBUDGET_BURST_NS);
	b->last_refill_ns = now_ns;
	if (b->tokens_ns > 0 && (owner == 0 || owner_tokens(b, owner, now_ns) > 0))
		return 1;
	b->refused_time++;
	return 0;
}

void loadbudget__spent(struct loadbudget *b, uid_t owner, uint64_t cpu_ns, uint64_t now_ns)
{
	int64_t cost = cpu_ns > (uint64_t)INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)cpu_ns;
	int64_t mine;

	b->tokens_ns -= cost;
	if (owner == 0)
		return;
	mine = owner_tokens(b, owner, now_ns) - cost;
	/* without room to remember the debt it is forgotten: the global
	 * bucket still bounds the total */
	if (u64map__put(b->owner_tokens, owner, (uint64_t)mine) < 0 ||
	    u64map__put(b->owner_refill, owner, now_ns) < 0) {
		(void)u64map__del(b->owner_tokens, owner);
		(void)u64map__del(b->owner_refill, owner);
	}
}

void loadbudget__refused(struct loadbudget *b)
{
	b->refused_bytes++;
}

void loadbudget__stats(const struct loadbudget *b, struct loadbudget_stats *out)
{
	out->bytes = b->bytes;
	out->max_bytes = b->max_bytes;
	out->refused_bytes = b->refused_bytes;
	out->refused_time = b->refused_time;
}
