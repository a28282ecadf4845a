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
	if (!b->by_owner) {
		free(b);
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

static void refill(struct loadbudget *b, uint64_t now_ns)
{
	uint64_t dt;

	if (!b->last_refill_ns || now_ns < b->last_refill_ns) {
		b->last_refill_ns = now_ns;
		return;
	}
	dt = now_ns - b->last_refill_ns;
	b->last_refill_ns = now_ns;
	if (dt > LOADBUDGET_BURST_NS * 1000)
		dt = LOADBUDGET_BURST_NS * 1000; /* no overflow below */
	b->tokens_ns += (int64_t)(dt / 1000000 * b->load_ppm);
	if (b->tokens_ns > (int64_t)LOADBUDGET_BURST_NS)
		b->tokens_ns = (int64_t)LOADBUDGET_BURST_NS;
}

int loadbudget__may_load(struct loadbudget *b, uint64_t now_ns)
{
	refill(b, now_ns);
	if (b->tokens_ns > 0)
		return 1;
	b->refused_time++;
	return 0;
}

void loadbudget__spent(struct loadbudget *b, uint64_t cpu_ns)
{
	b->tokens_ns -= cpu_ns > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)cpu_ns;
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
