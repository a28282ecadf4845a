/* Reading dumps back: the committed fixtures, hostile variants, limits. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "export/dump_read.h"
#include "export/gzip.h"
#include "profile/mappings.h"

#define FIXTURES SRCDIR "/tests/fixtures/dumps/"

static char err[512];

static int load(const char *name, struct dump **d)
{
	char path[1024];

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	err[0] = '\0';
	return dump__read_file(path, d, NULL, NULL, err, sizeof(err));
}

static void *slurp(const char *name, size_t *len)
{
	char path[1024];
	struct stat st;
	void *buf;
	int fd;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	((char *)buf)[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return buf;
}

static void check_valid(const struct dump *d)
{
	const struct dump_profile *p;

	cr_assert_str_eq(d->schema, "smolder.profile/v1");
	cr_assert_str_eq(d->window_id, "web01@1763740800000000000");
	cr_assert_eq(d->start_ns, 1763740800000000000ull);
	cr_assert_eq(d->end_ns, 1763740810000000000ull);
	cr_assert_str_eq(d->hostname, "web01");
	cr_assert_str_eq(d->kernel, "3.10.0-1160.el7.x86_64");
	cr_assert_str_eq(d->arch, "x86_64");
	cr_assert_str_eq(d->event_name, "cpu-clock");
	cr_assert_str_eq(d->event_unit, "samples");
	cr_assert_eq(d->frequency_hz, 99);
	cr_assert_eq(d->nlabels, 2);
	cr_assert_str_eq(d->labels[0].name, "env");
	cr_assert_str_eq(d->labels[0].value, "prod");
	cr_assert_str_eq(d->labels[1].name, "dc");
	cr_assert_eq(d->total_samples, 27);
	cr_assert_eq(d->nprofiles, 2);
	p = &d->profiles[0];
	cr_assert_eq(p->nlabels, 4);
	cr_assert_str_eq(p->labels[0].name, "service_name");
	cr_assert_str_eq(p->labels[0].value, "nginx");
	cr_assert_str_eq(p->labels[1].name, "exe");
	cr_assert_str_eq(p->labels[1].value, "/usr/sbin/nginx");
	cr_assert_str_eq(p->labels[2].name, "comm");
	cr_assert_str_eq(p->labels[3].name, "pid");
	cr_assert_str_eq(p->labels[3].value, "4242");
	cr_assert_eq(p->samples, 22);
	cr_assert_eq(p->nstacks, 2);
	cr_assert_str_eq(p->stacks[0].stack,
			 "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]");
	cr_assert_eq(p->stacks[0].count, 17);
	cr_assert_eq(p->stacks[1].count, 5);
	p = &d->profiles[1];
	cr_assert_eq(p->nlabels, 3);
	cr_assert_str_eq(p->labels[2].value, "redis-server");
	cr_assert_eq(p->samples, 3);
	cr_assert_eq(p->nstacks, 2);
	cr_assert_str_eq(p->stacks[0].stack, "");
}

Test(dump_read, valid_plain_and_gzip)
{
	struct dump *d = NULL;
	void *gz = NULL, *plain = NULL, *json = NULL;
	size_t gzlen = 0, plen, jlen = 0;
	char path[1024];

	/* Plain JSON: *gz is a fresh gzip of the file's bytes. */
	snprintf(path, sizeof(path), FIXTURES "valid.json");
	cr_assert_eq(dump__read_file(path, &d, &gz, &gzlen, err, sizeof(err)), 0, "%s", err);
	check_valid(d);
	dump__delete(d);
	plain = slurp("valid.json", &plen);
	cr_assert(gzlen > 2 && ((unsigned char *)gz)[0] == 0x1f && ((unsigned char *)gz)[1] == 0x8b);
	cr_assert_eq(gzip__decompress(gz, gzlen, 1 << 20, &json, &jlen), 0);
	cr_assert_eq(jlen, plen);
	cr_assert_eq(memcmp(json, plain, plen), 0);
	free(json);
	free(gz);

	/* gzip: *gz is the file as is. */
	d = NULL;
	snprintf(path, sizeof(path), FIXTURES "valid.json.gz");
	cr_assert_eq(dump__read_file(path, &d, &gz, &gzlen, err, sizeof(err)), 0, "%s", err);
	check_valid(d);
	dump__delete(d);
	free(plain);
	plain = slurp("valid.json.gz", &plen);
	cr_assert_eq(gzlen, plen);
	cr_assert_eq(memcmp(gz, plain, plen), 0);
	free(gz);
	free(plain);

	/* Without gz. */
	cr_assert_eq(load("valid.json.gz", &d), 0);
	dump__delete(d);
	dump__delete(NULL);
}

Test(dump_read, idle_window_has_no_profiles)
{
	struct dump *d = NULL;

	cr_assert_eq(load("idle.json", &d), 0, "%s", err);
	cr_assert_eq(d->nprofiles, 0);
	cr_assert_eq(d->total_samples, 2);
	dump__delete(d);
}

static void expect_bad(const char *fixture, const char *needle)
{
	struct dump *d = (struct dump *)0x1;
	void *gz = (void *)0x2;
	size_t gzlen = 7;
	char path[1024];

	snprintf(path, sizeof(path), FIXTURES "%s", fixture);
	err[0] = '\0';
	cr_assert_eq(dump__read_file(path, &d, &gz, &gzlen, err, sizeof(err)), -EINVAL,
		     "%s: accepted or wrong code (%s)", fixture, err);
	cr_assert(strstr(err, needle), "%s: error '%s' lacks '%s'", fixture, err, needle);
	/* Outputs untouched on failure. */
	cr_assert_eq(d, (struct dump *)0x1);
	cr_assert_eq(gz, (void *)0x2);
	cr_assert_eq(gzlen, 7);
}

Test(dump_read, broken_fixtures_say_what_is_wrong)
{
	expect_bad("truncated.json.gz", "truncated or corrupt gzip data");
	expect_bad("truncated.json", "not JSON: line 1, column");
	expect_bad("not_json.json", "not JSON: line 1, column 1");
	expect_bad("bad_line3.json", "not JSON: line 3, column");
	expect_bad("other_schema.json", "schema is 'smolder.profile/v2', expected smolder.profile/v1");
	expect_bad("empty.json", "empty file");
	expect_bad("empty.json.gz", "empty file");
	expect_bad("bad_sum.json", "profiles[1]: stack counts sum to 3, samples says 4");
	expect_bad("negative_count.json", "profiles[0].stacks[1].count: not a non-negative integer");
	expect_bad("control_char.json", "profiles[0].stacks[1].stack: control character 0x01");
	expect_bad("missing_labels.json", "profiles[1].labels: missing");
	expect_bad("missing_comm.json", "profiles[0].labels.comm: missing");
	expect_bad("duplicate_key.json", "duplicate");
	expect_bad("duplicate_stack.json", "profiles[0].stacks[1].stack: duplicate stack");
	expect_bad("window_reversed.json", "window: start_ns");
	expect_bad("stats_mismatch.json", "stats.samples - stats.dropped");
}

/* The valid fixture with one substitution applied. */
static int parse_edited(const char *from, const char *to)
{
	size_t len, flen = strlen(from), tlen = strlen(to);
	char *buf = slurp("valid.json", &len), *at, *out;
	struct dump *d = NULL;
	int rc;

	at = strstr(buf, from);
	cr_assert_not_null(at, "fixture lacks %s", from);
	out = malloc(len - flen + tlen + 1);
	memcpy(out, buf, (size_t)(at - buf));
	memcpy(out + (at - buf), to, tlen);
	memcpy(out + (at - buf) + tlen, at + flen, len - (size_t)(at - buf) - flen);
	err[0] = '\0';
	rc = dump__parse(out, len - flen + tlen, &d, err, sizeof(err));
	if (rc == 0)
		dump__delete(d);
	free(buf);
	free(out);
	return rc;
}

#define BAD(from, to, needle)                                                                  \
	do {                                                                                   \
		cr_assert_eq(parse_edited(from, to), -EINVAL, "accepted %s", to);              \
		cr_assert(strstr(err, needle), "error '%s' lacks '%s'", err, needle);          \
	} while (0)

Test(dump_read, validation_names_the_path)
{
	BAD("\"count\":17", "\"count\":17.0", "profiles[0].stacks[0].count: not a non-negative integer");
	BAD("\"count\":17", "\"count\":\"17\"", "profiles[0].stacks[0].count");
	BAD("\"count\":5", "\"count\":0", "profiles[0].stacks[1].count: must be >= 1");
	BAD("\"env\":\"prod\"", "\"env\":1", "labels.env: not a string");
	BAD("\"pid\":\"4242\"", "\"pid\":\"0042\"", "profiles[0].labels.pid: not a decimal pid");
	BAD("\"pid\":\"4242\"", "\"pid\":4242", "profiles[0].labels.pid: not a string");
	BAD("\"comm\":\"nginx\"", "\"comm\":\"nginx\",\"x\":1", "profiles[0].labels.x: not a string");
	BAD("\"comm\":\"nginx\"", "\"comm\":\"nginx\",\"thread\":7", "profiles[0].labels.thread: not a string");
	BAD("\"schema\"", "\"extra\":1,\"schema\"", "extra: unexpected key");
	BAD("\"lost\":0", "\"lost\":-1", "stats.lost: not a non-negative integer");
	BAD("\"lost\":0,", "", "stats.lost: missing");
	BAD("\"future_counter\":5", "\"future_counter\":\"5\"", "stats.future_counter");
	BAD("\"no_map\":0", "\"no_map\":0,\"x\":0", "stats.unwind.x: unexpected key");
	BAD("\"frequency_hz\":99", "\"frequency_hz\":-99", "event.frequency_hz");
	BAD("\"id\":\"web01@1763740800000000000\"", "\"id\":\"\"", "window.id");
	BAD("\"name\":\"smolder\"", "\"name\":\"other\"", "agent.name is 'other'");
	BAD("\"samples\":22", "\"samples\":0", "profiles[0].samples: must be >= 1");
	BAD("\"stacks\":[{\"stack\":\"\",\"count\":1},{\"stack\":\"main;aeMain;[redis-server]\",\"count\":2}]",
	    "\"stacks\":[]", "profiles[1].stacks: empty");
	BAD("\"schema\":\"smolder.profile/v1\"", "\"schema\":\"evil\\u0001'\"",
	    "schema is 'evil?" "?', expected");
	BAD("\"schema\":\"smolder.profile/v1\"", "\"schema\":1", "schema: not a string");
	BAD("\"start_ns\":1763740800000000000", "\"start_ns\":99999999999999999999",
	    "not JSON");
}

/* "mappings" (optional): read back, each field checked and named. */
Test(dump_read, mappings_read_and_checked)
{
	static const char *const ok = "\"mappings\":[{\"module\":\"app\",\"path\":\"/bin/app\","
				      "\"build_id\":\"22bb\"}],\"stats\"";
	char *buf;
	size_t len;
	struct dump *d = NULL;
	const struct mapping *e;
	bool amb;

	cr_assert_eq(parse_edited("\"stats\"", ok), 0, "%s", err);
	buf = slurp("valid.json", &len);
	cr_assert_eq(dump__parse(buf, len, &d, err, sizeof(err)), 0);
	cr_assert_null(d->mappings, "a dump without mappings lists none");
	dump__delete(d);
	free(buf);
	BAD("\"stats\"", "\"mappings\":{},\"stats\"", "mappings: not an array");
	BAD("\"stats\"", "\"mappings\":[1],\"stats\"", "mappings[0]: not an object");
	BAD("\"stats\"", "\"mappings\":[{\"module\":\"a\",\"path\":\"\"}],\"stats\"",
	    "mappings[0].build_id: missing");
	BAD("\"stats\"", "\"mappings\":[{\"module\":\"a\",\"path\":\"\",\"build_id\":\"XY\"}],\"stats\"",
	    "mappings[0]: an empty module, or a build_id that is not lowercase hex");
	BAD("\"stats\"", "\"mappings\":[{\"module\":\"\",\"path\":\"\",\"build_id\":\"\"}],\"stats\"",
	    "mappings[0]: an empty module");
	BAD("\"stats\"", "\"mappings\":[{\"module\":\"a\",\"path\":\"\",\"build_id\":\"\",\"x\":1}],\"stats\"",
	    "mappings[0].x: unexpected key");
	BAD("\"stats\"", "\"mappings\":[{\"module\":\"a\\u0001\",\"path\":\"\",\"build_id\":\"\"}],\"stats\"",
	    "mappings[0]: control character");
	/* and what a good one holds */
	{
		const char *from = "\"stats\"";
		char *text = slurp("valid.json", &len), *at = strstr(text, from), *out;
		size_t tl = strlen(ok);

		out = malloc(len + tl);
		memcpy(out, text, (size_t)(at - text));
		memcpy(out + (at - text), ok, tl);
		memcpy(out + (at - text) + tl, at + strlen(from), len - (size_t)(at - text) - strlen(from));
		cr_assert_eq(dump__parse(out, len - strlen(from) + tl, &d, err, sizeof(err)), 0, "%s", err);
		e = mappings__find(d->mappings, "app", 3, &amb);
		cr_assert_not_null(e);
		cr_assert_str_eq(e->build_id, "22bb");
		cr_assert_str_eq(e->path, "/bin/app");
		dump__delete(d);
		free(out);
		free(text);
	}
}

Test(dump_read, parse_rejects_structure_abuse)
{
	char *buf;
	size_t i, n = 100000;
	struct dump *d = NULL;
	int off;

	/* Deep nesting is refused before the recursive parser sees it. */
	buf = malloc(2 * n + 1);
	for (i = 0; i < n; i++) {
		buf[i] = '[';
		buf[n + i] = ']';
	}
	cr_assert_eq(dump__parse(buf, 2 * n, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "nested deeper"), "%s", err);
	free(buf);

	/* Too many global labels. */
	buf = malloc(300 * 32 + 64);
	off = snprintf(buf, 64, "{\"schema\":\"smolder.profile/v1\",\"labels\":{");
	for (i = 0; i < 300; i++)
		off += snprintf(buf + off, 32, "%s\"l%zu\":\"v\"", i ? "," : "", i);
	off += snprintf(buf + off, 4, "}}");
	cr_assert_eq(dump__parse(buf, (size_t)off, &d, err, sizeof(err)), -EINVAL);
	/* (agent is checked before labels; both are errors) */
	cr_assert(strstr(err, "agent: missing"), "%s", err);
	free(buf);

	cr_assert_eq(dump__parse("[1,2]", 5, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not a JSON object"), "%s", err);
	cr_assert_eq(dump__parse("{}", 2, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "schema: missing"), "%s", err);
	cr_assert_eq(dump__parse("{\"a\":\"\\u0000\"}", 13, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not JSON"), "%s", err);
	cr_assert_null(d);
}

/* Parses valid.json with n labels "lN":"v" inserted before where (a
 * string of it), and expects the error needle. */
static void expect_too_many(const char *where, size_t n, const char *needle)
{
	char *buf = slurp("valid.json", &(size_t){0}), *out, *at;
	size_t i, off;
	struct dump *d = NULL;

	at = strstr(buf, where);
	cr_assert_not_null(at);
	out = malloc(strlen(buf) + n * 32);
	off = (size_t)(at - buf);
	memcpy(out, buf, off);
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(out + off, 32, "\"l%zu\":\"v\",", i);
	memcpy(out + off, at, strlen(at) + 1);
	cr_assert_eq(dump__parse(out, strlen(out), &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, needle), "%s", err);
	free(out);
	free(buf);
}

Test(dump_read, too_many_labels)
{
	expect_too_many("\"env\":\"prod\"", 300, "labels: more than 256 labels");
}

/* Edits valid.json's first profile labels and parses the result, which
 * must be valid; *out is the dump (caller deletes). */
static void parse_labels_edit(const char *to, struct dump **out)
{
	static const char from[] = "\"comm\":\"nginx\"";
	char *buf = slurp("valid.json", &(size_t){0}), *ed, *at = strstr(buf, from);

	cr_assert_not_null(at);
	ed = malloc(strlen(buf) + strlen(to) + 1);
	memcpy(ed, buf, (size_t)(at - buf));
	strcpy(ed + (at - buf), to);
	strcat(ed, at + strlen(from));
	err[0] = '\0';
	cr_assert_eq(dump__parse(ed, strlen(ed), out, err, sizeof(err)), 0, "%s", err);
	free(ed);
	free(buf);
}

/* A thread label comes after pid; labels a newer agent adds are kept,
 * after the ones this reader knows, for filters. */
Test(dump_read, profile_labels_thread_and_unknown)
{
	const struct dump_profile *p;
	struct dump *d = NULL;

	parse_labels_edit("\"later\":\"x\",\"thread\":\"worker-a\",\"comm\":\"nginx\"", &d);
	p = &d->profiles[0];
	cr_assert_eq(p->nlabels, 6);
	cr_assert_str_eq(p->labels[2].name, "comm");
	cr_assert_str_eq(p->labels[3].name, "pid");
	cr_assert_str_eq(p->labels[4].name, "thread");
	cr_assert_str_eq(p->labels[4].value, "worker-a");
	cr_assert_str_eq(p->labels[5].name, "later");
	cr_assert_str_eq(p->labels[5].value, "x");
	cr_assert_eq(d->profiles[1].nlabels, 3);
	dump__delete(d);

	/* an empty name is a thread label too: the name was not known */
	parse_labels_edit("\"comm\":\"nginx\",\"thread\":\"\"", &d);
	cr_assert_str_eq(d->profiles[0].labels[4].value, "");
	dump__delete(d);
}

Test(dump_read, too_many_profile_labels)
{
	/* 4 of valid.json's and 29 more */
	expect_too_many("\"service_name\":\"nginx\"", 29,
			"profiles[0].labels: more than 32 labels");
}

static char tmpdir[256];

static void mk_tmp(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/smolder-dump-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

Test(dump_read, symlink_fifo_and_missing_refused)
{
	char link[512];
	struct dump *d = NULL;
	int dfd;

	mk_tmp();
	snprintf(link, sizeof(link), "%s/link.json", tmpdir);
	cr_assert_eq(symlink(FIXTURES "valid.json", link), 0);
	cr_assert_eq(dump__read_file(link, &d, NULL, NULL, err, sizeof(err)), -ELOOP);
	cr_assert(strstr(err, "symbolic link"), "%s", err);
	unlink(link);

	snprintf(link, sizeof(link), "%s/fifo.json", tmpdir);
	cr_assert_eq(mkfifo(link, 0600), 0);
	cr_assert_eq(dump__read_file(link, &d, NULL, NULL, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not a regular file"), "%s", err);
	unlink(link);

	cr_assert_eq(dump__read_file(link, &d, NULL, NULL, err, sizeof(err)), -ENOENT);
	dfd = open(SRCDIR "/tests/fixtures/dumps", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	cr_assert_eq(dump__read_fileat(dfd, "valid.json.gz", &d, NULL, NULL, err, sizeof(err)), 0);
	dump__delete(d);
	close(dfd);
	rmdir(tmpdir);
	cr_assert_null(NULL);
}

Test(dump_read, oversized_file_refused)
{
	char path[512];
	struct dump *d = NULL;
	int fd;

	mk_tmp();
	snprintf(path, sizeof(path), "%s/huge.json", tmpdir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert(fd >= 0);
	/* Sparse: costs no disk. */
	cr_assert_eq(ftruncate(fd, (off_t)DUMP_MAX_FILE + 1), 0);
	close(fd);
	cr_assert_eq(dump__read_file(path, &d, NULL, NULL, err, sizeof(err)), -EFBIG);
	cr_assert(strstr(err, "file larger than"), "%s", err);
	unlink(path);
	rmdir(tmpdir);
}

/* A gzip member of n zero bytes, built by streaming. */
static void *zero_bomb(uint64_t n, size_t *len)
{
	static unsigned char zeros[1 << 20];
	size_t cap = (size_t)(n / 500) + 4096, used = 0;
	unsigned char *out = malloc(cap);
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	cr_assert_eq(deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 9, Z_RLE), Z_OK);
	while (n || zs.avail_in) {
		int flush;

		if (!zs.avail_in && n) {
			size_t chunk = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

			zs.next_in = zeros;
			zs.avail_in = (uInt)chunk;
			n -= chunk;
		}
		flush = n ? Z_NO_FLUSH : Z_FINISH;
		zs.next_out = out + used;
		zs.avail_out = (uInt)(cap - used);
		cr_assert(deflate(&zs, flush) != Z_STREAM_ERROR);
		used = cap - zs.avail_out;
		cr_assert(used < cap, "bomb buffer too small");
	}
	while (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		zs.next_out = out + used;
		zs.avail_out = (uInt)(cap - used);
		used = cap - zs.avail_out;
	}
	used = cap - zs.avail_out;
	deflateEnd(&zs);
	*len = used;
	return out;
}

Test(dump_read, gzip_bombs_are_bounded)
{
	char path[512];
	struct dump *d = NULL;
	size_t len, i;
	void *bomb;
	int fd;

	mk_tmp();
	snprintf(path, sizeof(path), "%s/bomb.json.gz", tmpdir);
	/* 100 MB of zeros: inflates within DUMP_MAX_JSON, then is no JSON. */
	bomb = zero_bomb(100ull << 20, &len);
	cr_assert(len < (1u << 20));
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_eq(write(fd, bomb, len), (ssize_t)len);
	close(fd);
	free(bomb);
	cr_assert_eq(dump__read_file(path, &d, NULL, NULL, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not JSON"), "%s", err);

	/* Past DUMP_MAX_JSON: refused as soon as the bound is crossed. Built
	 * as concatenated members (valid gzip) of 64 MiB of zeros each, which
	 * is much faster than deflating 1 GiB in the test. */
	bomb = zero_bomb(64ull << 20, &len);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	for (i = 0; i <= DUMP_MAX_JSON / (64u << 20); i++)
		cr_assert_eq(write(fd, bomb, len), (ssize_t)len);
	close(fd);
	free(bomb);
	cr_assert_eq(dump__read_file(path, &d, NULL, NULL, err, sizeof(err)), -EFBIG);
	cr_assert(strstr(err, "decompresses to more than"), "%s", err);
	cr_assert_null(d);
	unlink(path);
	rmdir(tmpdir);
}

/* A dump of the valid fixture with these counters in its stats. */
static int parse_with_stats(const char *extra, struct dump **d)
{
	size_t len, off;
	char *text = slurp("valid.json", &len), *buf;
	const char *at = strstr(text, "\"agent_rss_bytes\":9000000");
	int rc;

	cr_assert_not_null(at);
	off = (size_t)(at - text) + strlen("\"agent_rss_bytes\":9000000");
	buf = malloc(len + strlen(extra) + 2);
	memcpy(buf, text, off);
	buf[off] = ',';
	memcpy(buf + off + 1, extra, strlen(extra));
	memcpy(buf + off + 1 + strlen(extra), text + off, len - off);
	err[0] = '\0';
	rc = dump__parse(buf, len + 1 + strlen(extra), d, err, sizeof(err));
	free(buf);
	free(text);
	return rc;
}

/* Runtime readers' counters are blocks by reader; dumps written before
 * they were had flat keys, which land in the same blocks. */
Test(dump_read, runtime_blocks_and_their_former_keys)
{
	struct dump *d = NULL;
	struct agent_runtime_stats *py, *hs;

	cr_assert_eq(parse_with_stats("\"runtimes\":{\"cpython\":{\"readers\":2,\"stacks\":40,"
				      "\"lag_max_ns\":900,\"from_the_future\":3},"
				      "\"ruby\":{\"stacks\":7}}", &d), 0, "%s", err);
	py = agent_stats__runtime(&d->stats, "cpython");
	cr_assert_eq(py->readers, 2);
	cr_assert_eq(py->stacks, 40);
	cr_assert_eq(py->lag_max_ns, 900);
	cr_assert_eq(agent_stats__runtime(&d->stats, "ruby")->stacks, 7);
	dump__delete(d);

	cr_assert_eq(parse_with_stats("\"jvms\":1,\"jvm_reads\":300,\"pythons\":3,"
				      "\"python_stacks\":55,\"python_confirmed\":4", &d), 0, "%s", err);
	hs = agent_stats__runtime(&d->stats, "hotspot");
	py = agent_stats__runtime(&d->stats, "cpython");
	cr_assert_eq(hs->readers, 1);
	cr_assert_eq(hs->reads, 300);
	cr_assert_eq(py->readers, 3);
	cr_assert_eq(py->stacks, 55);
	cr_assert_eq(py->confirmed, 4);
	dump__delete(d);

	/* only counters, in objects */
	cr_assert_eq(parse_with_stats("\"runtimes\":{\"cpython\":{\"stacks\":-1}}", &d), -EINVAL);
	cr_assert(strstr(err, "stats.runtimes.cpython.stacks"), "%s", err);
	cr_assert_eq(parse_with_stats("\"runtimes\":{\"cpython\":5}", &d), -EINVAL);
	cr_assert(strstr(err, "stats.runtimes.cpython"), "%s", err);
	cr_assert_eq(parse_with_stats("\"runtimes\":[]", &d), -EINVAL);
	cr_assert(strstr(err, "stats.runtimes"), "%s", err);
}

/* Windows merge block by block, by name, whatever their order. */
Test(dump_read, runtime_blocks_merge_by_name)
{
	struct agent_stats a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	agent_stats__runtime(&a, "hotspot")->stacks = 1;
	agent_stats__runtime(&a, "cpython")->stacks = 10;
	agent_stats__runtime(&a, "cpython")->reads = 100;
	agent_stats__runtime(&b, "cpython")->stacks = 5;
	agent_stats__runtime(&b, "cpython")->reads = 90;
	agent_stats__runtime(&b, "go")->stacks = 2;
	agent_stats__merge(&a, &b);
	cr_assert_eq(agent_stats__runtime(&a, "cpython")->stacks, 15, "per-window counts add up");
	cr_assert_eq(agent_stats__runtime(&a, "cpython")->reads, 100, "totals since start take the largest");
	cr_assert_eq(agent_stats__runtime(&a, "hotspot")->stacks, 1);
	cr_assert_eq(agent_stats__runtime(&a, "go")->stacks, 2);
}

/* A recording of several events: a document each, one after the other.
 * Each is validated and chained; asked for the gzip form, each document
 * also has its own, whose text is exactly that document's. A bad
 * document is named by its place; more than DUMP_MAX_DOCUMENTS are
 * refused. */
Test(dump_read, several_documents)
{
	size_t len, i;
	char *one = slurp("valid.json", &len), *two, *many, path[] = "/tmp/smolder-dump-XXXXXX";
	struct dump *d = NULL;
	void *gz = NULL, *json = NULL;
	size_t gzlen = 0, jlen = 0;
	int fd;

	two = malloc(2 * len + 2);
	memcpy(two, one, len);
	memcpy(two + len, one, len);
	cr_assert_eq(dump__parse(two, 2 * len, &d, err, sizeof(err)), 0, "%s", err);
	check_valid(d);
	cr_assert_not_null(d->next);
	cr_assert_eq(d->next->index, 1);
	check_valid(d->next);
	cr_assert_null(d->next->next);
	cr_assert_null(d->doc_gz, "no gzip form asked for");
	dump__delete(d);

	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, two, 2 * len), (ssize_t)(2 * len));
	close(fd);
	cr_assert_eq(dump__read_file(path, &d, &gz, &gzlen, err, sizeof(err)), 0, "%s", err);
	unlink(path);
	cr_assert_not_null(d->doc_gz);
	cr_assert_not_null(d->next->doc_gz);
	cr_assert_eq(gzip__decompress(d->next->doc_gz, d->next->doc_gzlen, 1 << 20, &json, &jlen), 0);
	cr_assert_eq(jlen, len, "the second document's own bytes");
	cr_assert_eq(memcmp(json, one, len), 0);
	free(json);
	free(gz);
	dump__delete(d);

	/* garbage after a document is a bad second document */
	memcpy(two + len, "{\"schema\":1}", 13);
	cr_assert_eq(dump__parse(two, len + 13, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strncmp(err, "document 2: ", 12) == 0, "%s", err);
	/* ...and the newline after the last one no document at all */
	cr_assert_eq(dump__parse(one, len, &d, err, sizeof(err)), 0, "%s", err);
	cr_assert_null(d->next);
	dump__delete(d);

	many = malloc((DUMP_MAX_DOCUMENTS + 1) * len);
	for (i = 0; i <= DUMP_MAX_DOCUMENTS; i++)
		memcpy(many + i * len, one, len);
	cr_assert_eq(dump__parse(many, (DUMP_MAX_DOCUMENTS + 1) * len, &d, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "more than 16 documents"), "%s", err);
	free(many);
	free(two);
	free(one);
}
