/* export/dump_rename: a document written again with its frames renamed:
 * stacks that become one are merged and sorted as the format wants, the
 * rest kept byte for byte, and what comes out reads as a valid dump. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "export/dump_read.h"
#include "export/dump_rename.h"

static const char doc[] =
	"{\"schema\":\"smolder.profile/v1\",\"agent\":{\"name\":\"smolder\",\"version\":\"0.1.0\"},"
	"\"host\":{\"hostname\":\"h\",\"kernel\":\"k\",\"arch\":\"x86_64\"},"
	"\"window\":{\"start_ns\":1,\"end_ns\":2,\"id\":\"h@1\"},"
	"\"event\":{\"name\":\"cpu-clock\",\"unit\":\"samples\",\"frequency_hz\":99},\"labels\":{\"env\":\"prod\"},"
	"\"profiles\":[{\"labels\":{\"service_name\":\"app\",\"exe\":\"/bin/app\",\"comm\":\"app\"},\"samples\":7,"
	"\"stacks\":[{\"stack\":\"main;app+0x10\",\"count\":3},{\"stack\":\"main;app+0x20\",\"count\":2},"
	"{\"stack\":\"main;hot\",\"count\":2}]}],"
	"\"mappings\":[{\"module\":\"app\",\"path\":\"/bin/app\",\"build_id\":\"ab\"}],"
	"\"stats\":{\"samples\":7,\"lost\":0,\"dropped\":0,\"throttled\":0,\"kernel_only\":0,\"idle\":0,"
	"\"corrupt\":0,\"unwind\":{\"complete\":7,\"truncated\":0,\"no_cfi\":0,\"no_map\":0,\"bad_pc\":0,"
	"\"depth\":0},\"processes\":1,\"binaries\":1,\"agent_cpu_ns\":1,\"agent_rss_bytes\":1}}\n";

static const char *names(void *ctx, const char *frame, size_t len)
{
	(void)ctx;
	if (len == 8 && !memcmp(frame, "app+0x10", 8))
		return "hot";
	if (len == 8 && !memcmp(frame, "app+0x20", 8))
		return "cold";
	return NULL;
}

static const char *none(void *ctx, const char *frame, size_t len)
{
	(void)ctx;
	(void)frame;
	(void)len;
	return NULL;
}

Test(dump_rename, stacks_renamed_merged_and_sorted)
{
	struct dump *d = NULL, *again = NULL;
	char err[256], *out = NULL;
	size_t len = 0;

	cr_assert_eq(dump__parse(doc, sizeof(doc) - 1, &d, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dump_rename__document(d, names, NULL, &out, &len), 2);
	cr_assert_eq(out[len - 1], '\n');
	/* main;hot 3 + 2, then main;cold 2: counts descending */
	cr_assert(strstr(out, "\"stacks\":[{\"stack\":\"main;hot\",\"count\":5},{\"stack\":\"main;cold\",\"count\":2}]"),
		  "%s", out);
	/* the rest as it was, in its order */
	cr_assert(strstr(out, "\"window\":{\"start_ns\":1,\"end_ns\":2,\"id\":\"h@1\"}"), "%s", out);
	cr_assert(strstr(out, "\"samples\":7,\"stacks\":"), "%s", out);
	cr_assert(strstr(out, "],\"mappings\":[{\"module\":\"app\""), "%s", out);
	cr_assert_eq(dump__parse(out, len, &again, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(again->profiles[0].nstacks, 2);
	dump__delete(again);
	free(out);
	/* nothing renamed: the same document */
	cr_assert_eq(dump_rename__document(d, none, NULL, &out, &len), 0);
	cr_assert_str_eq(out, doc);
	free(out);
	dump__delete(d);
}
