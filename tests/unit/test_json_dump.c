/* export/json_dump: the smolder.profile/v1 document (fields, order, hostile strings, the schema). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "export/json_dump.h"
#include "profile/mappings.h"
#include "tests/unit/profile_fixture.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

/* Encoders run on a memory stream; they return the malloc'd output. */
static char *capture_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(json_dump__write(prof, &agent, f), 0);
	fclose(f);
	return buf;
}

static json_int_t jget_int(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	cr_assert(json_is_integer(v), "%s is not an integer", k);
	return json_integer_value(v);
}

static const char *jget_str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	cr_assert(json_is_string(v), "%s is not a string", k);
	return json_string_value(v);
}

/* Asserts o has exactly the keys of keys[], in that order. */
static void assert_keys(json_t *o, const char *const *keys, size_t n, const char *text,
			const char *first)
{
	const char *prev = text;
	size_t i;

	cr_assert(json_is_object(o));
	cr_assert_eq(json_object_size(o), n, "object before \"%s\": %zu keys, want %zu", first,
		     json_object_size(o), n);
	for (i = 0; i < n; i++) {
		char quoted[64];
		const char *at;

		cr_assert_not_null(json_object_get(o, keys[i]), "missing key %s", keys[i]);
		snprintf(quoted, sizeof(quoted), "\"%s\":", keys[i]);
		at = strstr(prev, quoted);
		cr_assert_not_null(at, "key %s out of order", keys[i]);
		prev = at;
	}
}

TestSuite(json, .init = setup, .fini = teardown);

Test(json, document_fields)
{
	static const char *const top_keys[] = {"schema", "agent", "host", "window", "event",
					       "labels", "profiles", "stats"};
	static const char *const stats_keys[] = {"samples", "lost", "dropped", "throttled",
						 "kernel_only", "idle", "filtered", "corrupt", "handled_late", "unwind",
						 "deep_stacks", "deep_reads", "deep_bytes", "deep_refused",
						 "deep_stale", "deep_failed", "deep_walk_proved", "processes",
						 "binaries", "agent_cpu_ns", "agent_load_cpu_ns", "agent_rss_bytes",
						 "agent_peak_rss_bytes",
						 "spool_dropped", "frequency_configured_hz",
						 "cfi_lookups", "cfi_hits", "cfi_evictions",
						 "sym_lookups", "sym_hits", "sym_evictions",
						 "inline_lookups", "inline_hits", "inline_evictions",
						 "inline_builds", "inline_loads", "inline_index_bytes",
						 "inline_rejected",
						 "ksym_lookups", "ksym_hits", "ksym_evictions",
						 "debug_bytes", "debug_refused",
						 "names", "names_bytes", "names_compactions", "names_cut",
						 "off_cpu_switches", "off_cpu_preempted", "off_cpu_sampled",
						 "off_cpu_ns", "off_cpu_weighted_ns", "off_cpu_unsampled_ns", "off_cpu_unmatched",
						 "off_cpu_dropped", "off_cpu_threads", "off_cpu_late_ins",
						 "runtimes"};
	static const char *const unwind_keys[] = {"complete", "truncated", "no_cfi", "no_map",
						  "bad_pc", "depth"};
	char *text = capture_json();
	json_error_t err;
	json_t *root = json_loads(text, 0, &err), *o, *profiles, *labels;

	cr_assert_not_null(root, "dump does not parse: %s at %d", err.text, err.position);
	cr_assert_eq(text[strlen(text) - 1], '\n');
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "compact: one line");
	assert_keys(root, top_keys, 8, text, "schema");
	cr_assert_str_eq(jget_str(root, "schema"), "smolder.profile/v1");
	o = json_object_get(root, "agent");
	cr_assert_str_eq(jget_str(o, "name"), "smolder");
	cr_assert_str_eq(jget_str(o, "version"), SMOLDER_VERSION);
	o = json_object_get(root, "host");
	cr_assert_str_eq(jget_str(o, "hostname"), "web01");
	cr_assert_str_eq(jget_str(o, "kernel"), "3.10.0-1160.el7.x86_64");
	cr_assert_str_eq(jget_str(o, "arch"), "x86_64");
	o = json_object_get(root, "window");
	cr_assert_eq(jget_int(o, "start_ns"), 1763740800000000000ll);
	cr_assert_eq(jget_int(o, "end_ns"), 1763740810000000000ll);
	o = json_object_get(root, "event");
	cr_assert_str_eq(jget_str(o, "name"), "cpu-clock");
	cr_assert_str_eq(jget_str(o, "unit"), "samples");
	cr_assert_eq(jget_int(o, "frequency_hz"), 99);
	labels = json_object_get(root, "labels");
	cr_assert_eq(json_object_size(labels), 2);
	cr_assert_str_eq(jget_str(labels, "env"), "prod");
	cr_assert_str_eq(jget_str(labels, "dc"), "eu-1");

	o = json_object_get(root, "stats");
	assert_keys(o, stats_keys, sizeof(stats_keys) / sizeof(stats_keys[0]), strstr(text, "\"stats\":"), "samples");
	assert_keys(json_object_get(o, "unwind"), unwind_keys, 6, strstr(text, "\"unwind\":"),
		    "complete");
	cr_assert_eq(jget_int(o, "samples"), 18);
	cr_assert_eq(jget_int(o, "dropped"), 2);
	cr_assert_eq(jget_int(o, "lost"), 3);
	cr_assert_eq(jget_int(o, "throttled"), 1);
	cr_assert_eq(jget_int(o, "kernel_only"), 1);
	cr_assert_eq(jget_int(o, "idle"), 2);
	cr_assert_eq(jget_int(o, "corrupt"), 1);
	cr_assert_eq(jget_int(json_object_get(o, "unwind"), "complete"), 14);
	cr_assert_eq(jget_int(json_object_get(o, "unwind"), "no_cfi"), 1);
	cr_assert_eq(jget_int(o, "processes"), 41);
	cr_assert_eq(jget_int(o, "binaries"), 7);
	cr_assert_eq(jget_int(o, "agent_cpu_ns"), 31000000);
	cr_assert_eq(jget_int(o, "agent_rss_bytes"), 9000000);
	/* one block per reader, in the registry's order, every counter */
	{
		json_t *rt = json_object_get(o, "runtimes"), *py;
		const struct agent_stat_field *f;

		cr_assert_eq(json_object_size(rt), 2);
		cr_assert_not_null(json_object_get(rt, "hotspot"));
		py = json_object_get(rt, "cpython");
		for (f = agent_runtime_stats__fields; f->name; f++)
			cr_assert(json_is_integer(json_object_get(py, f->name)), "runtimes.cpython.%s", f->name);
		cr_assert_eq(jget_int(py, "readers"), 1);
		cr_assert_eq(jget_int(py, "reads"), 120);
		cr_assert_eq(jget_int(py, "stacks"), 9);
		cr_assert_eq(jget_int(py, "lag_max_ns"), 700000);
		cr_assert_eq(jget_int(json_object_get(rt, "hotspot"), "stacks"), 0);
	}

	profiles = json_object_get(root, "profiles");
	cr_assert(json_is_array(profiles));
	cr_assert_eq(json_array_size(profiles), 3);
	json_decref(root);
	free(text);
}

Test(json, profiles_sorted_and_counts_sum)
{
	char *text = capture_json();
	json_t *root = json_loads(text, 0, NULL), *profiles, *p, *l, *stacks, *st;
	json_int_t total = 0;
	size_t i, j;

	cr_assert_not_null(root);
	profiles = json_object_get(root, "profiles");
	for (i = 0; i < json_array_size(profiles); i++) {
		json_int_t sum = 0, prev = -1;
		const char *prevs = NULL;

		p = json_array_get(profiles, i);
		stacks = json_object_get(p, "stacks");
		cr_assert(json_is_array(stacks));
		for (j = 0; j < json_array_size(stacks); j++) {
			json_int_t c;

			st = json_array_get(stacks, j);
			c = jget_int(st, "count");
			cr_assert_gt(c, 0);
			/* count desc, then stack string asc */
			if (prevs) {
				cr_assert(c < prev || (c == prev && strcmp(prevs, jget_str(st, "stack")) < 0));
			}
			prev = c;
			prevs = jget_str(st, "stack");
			sum += c;
		}
		cr_assert_eq(sum, jget_int(p, "samples"), "profile %zu", i);
		total += sum;
	}
	cr_assert_eq(total, jget_int(json_object_get(root, "stats"), "samples") -
				    jget_int(json_object_get(root, "stats"), "dropped"));

	/* samples desc, ties by service_name: svc(6), svc2(6), svc(4). */
	p = json_array_get(profiles, 0);
	l = json_object_get(p, "labels");
	cr_assert_str_eq(jget_str(l, "service_name"), "svc");
	cr_assert_str_eq(jget_str(l, "exe"), "/bin/app");
	cr_assert_str_eq(jget_str(l, "comm"), "app");
	cr_assert_null(json_object_get(l, "pid"), "no pid without per-pid grouping");
	cr_assert_eq(jget_int(p, "samples"), 6);
	stacks = json_object_get(p, "stacks");
	cr_assert_eq(json_array_size(stacks), 3);
	cr_assert_str_eq(jget_str(json_array_get(stacks, 0), "stack"), "main;foo_[k]");
	cr_assert_eq(jget_int(json_array_get(stacks, 0), "count"), 3);
	cr_assert_str_eq(jget_str(json_array_get(stacks, 1), "stack"), "main;bar_[i]");
	cr_assert_str_eq(jget_str(json_array_get(stacks, 2), "stack"), "");
	cr_assert_eq(jget_int(json_array_get(stacks, 2), "count"), 1);

	p = json_array_get(profiles, 1);
	l = json_object_get(p, "labels");
	cr_assert_str_eq(jget_str(l, "service_name"), "svc2");
	cr_assert_str_eq(jget_str(l, "pid"), "42");
	cr_assert(strstr(text, "\"labels\":{\"service_name\":\"svc2\",\"exe\":\"/bin/other\","
			       "\"comm\":\"other\",\"pid\":\"42\"}"));
	cr_assert_str_eq(jget_str(json_array_get(json_object_get(p, "stacks"), 0), "stack"),
			 "main;bar_[i];bar_[i]");

	p = json_array_get(profiles, 2);
	cr_assert_str_eq(jget_str(json_object_get(p, "labels"), "exe"), "/bin/app2");
	cr_assert_eq(jget_int(p, "samples"), 4);
	json_decref(root);
	free(text);
}

Test(json, to_buffer_matches_stream)
{
	char *text = capture_json(), *buf = NULL;
	size_t len = 0;

	cr_assert_eq(json_dump__to_buffer(prof, &agent, &buf, &len), 0);
	cr_assert_eq(len, strlen(text));
	cr_assert_str_eq(buf, text);
	free(buf);
	free(text);
}

Test(json, hostile_strings)
{
	struct profile_key k = key("svc", "/bin/x", "\xff\xfe" "bad", -1);
	uint32_t st[2] = {id("a;b"), id("c\td")};
	char *text;
	json_t *root;
	size_t i;
	int found = 0;

	cr_assert_eq(profile__add(prof, &k, st, 2, 100), 0);
	text = capture_json();
	root = json_loads(text, 0, NULL);
	cr_assert_not_null(root, "invalid UTF-8 must still produce valid JSON");
	for (i = 0; i < json_array_size(json_object_get(root, "profiles")); i++) {
		json_t *p = json_array_get(json_object_get(root, "profiles"), i);

		if (strcmp(jget_str(json_object_get(p, "labels"), "comm"), "\xef\xbf\xbd\xef\xbf\xbd" "bad"))
			continue;
		found = 1;
		cr_assert_str_eq(jget_str(json_array_get(json_object_get(p, "stacks"), 0), "stack"),
				 "a:b;c?d");
	}
	cr_assert(found);
	json_decref(root);
	free(text);
}

Test(json, empty_profile_and_unset_meta)
{
	struct strtab *t = strtab__new();
	struct profile *e = profile__new(t);
	char *buf = NULL;
	size_t len;
	json_t *root, *o;

	cr_assert_eq(json_dump__to_buffer(e, NULL, &buf, &len), 0);
	root = json_loads(buf, 0, NULL);
	cr_assert_not_null(root);
	cr_assert_eq(json_array_size(json_object_get(root, "profiles")), 0);
	o = json_object_get(root, "host");
	cr_assert_str_eq(jget_str(o, "hostname"), "");
	cr_assert_str_eq(jget_str(json_object_get(root, "event"), "unit"), "samples");
	cr_assert_eq(json_object_size(json_object_get(root, "labels")), 0);
	json_decref(root);
	free(buf);
	profile__delete(e);
	strtab__delete(t);
}

static int has_jsonschema(void)
{
	int st = system("python3 -c 'import jsonschema' >/dev/null 2>&1");

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int validate(const char *path, int quiet)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys,jsonschema; "
		 "s=json.load(open(sys.argv[1])); jsonschema.Draft7Validator.check_schema(s); "
		 "jsonschema.validate(json.load(open(sys.argv[2])), s, cls=jsonschema.Draft7Validator)' "
		 "'%s/doc/smolder.profile.v1.schema.json' '%s' %s",
		 SRCDIR, path, quiet ? "2>/dev/null" : "");
	st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The window in prof, written to a file, matches the schema (when
 * python3's jsonschema is there to say). */
static void expect_valid(const char *what)
{
	char path[] = "/tmp/smolder-test-json-XXXXXX";
	FILE *out;
	int fd;

	if (!has_jsonschema())
		return;
	fd = mkostemp(path, O_CLOEXEC);
	cr_assert_geq(fd, 0);
	out = fdopen(fd, "w");
	cr_assert_eq(json_dump__write(prof, &agent, out), 0);
	fclose(out);
	cr_expect_eq(validate(path, 0), 0, "a dump with %s does not match the schema", what);
	unlink(path);
}

/* Grouped per thread: a "thread" label after pid, "" for a name not
 * known; threads of one process sort by name; the schema takes it. */
Test(json, thread_label)
{
	struct profile_key k = key("svc", "/bin/app", "app", 42);
	uint32_t f = id("spin");
	char *text;

	profile__reset(prof);
	k.thread = id("worker-b");
	cr_assert_eq(profile__add(prof, &k, &f, 1, 2), 0);
	k.thread = id("worker-a");
	cr_assert_eq(profile__add(prof, &k, &f, 1, 2), 0);
	k.thread = id("");
	cr_assert_eq(profile__add(prof, &k, &f, 1, 1), 0);
	text = capture_json();
	cr_assert(strstr(text, "\"profiles\":[{\"labels\":{\"service_name\":\"svc\",\"exe\":\"/bin/app\","
			       "\"comm\":\"app\",\"pid\":\"42\",\"thread\":\"worker-a\"}"), "%s", text);
	cr_assert(strstr(text, "\"thread\":\"worker-a\"}") < strstr(text, "\"thread\":\"worker-b\"}"), "%s", text);
	cr_assert(strstr(text, "\"pid\":\"42\",\"thread\":\"\"}"), "%s", text);
	free(text);
	expect_valid("thread labels");
}

Test(json, matches_json_schema)
{
	char path[] = "/tmp/smolder-test-json-XXXXXX";
	int fd;
	FILE *f;

	if (!has_jsonschema())
		cr_skip_test("python3 jsonschema not available");
	fd = mkostemp(path, O_CLOEXEC);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	cr_assert_eq(json_dump__write(prof, &agent, f), 0);
	fclose(f);
	cr_expect_eq(validate(path, 0), 0, "dump does not match the schema");

	/* The validator must be able to fail: a negative count, then a
	 * document missing fields. */
	{
		char *text = capture_json(), *c = strstr(text, "\"count\":");
		FILE *g;

		cr_assert_not_null(c);
		g = fopen(path, "w");
		cr_assert_not_null(g);
		fprintf(g, "%.*s-%s", (int)(c + 8 - text), text, c + 8);
		fclose(g);
		free(text);
	}
	cr_expect_neq(validate(path, 1), 0, "schema accepts a negative count");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"schema\":\"smolder.profile/v1\"}\n", f);
	fclose(f);
	cr_expect_neq(validate(path, 1), 0, "schema accepts an incomplete document");
	unlink(path);
}

/* A user's process: a "user" label after comm, and never the same profile
 * as root's of the same names; root's carry none. */
Test(json, user_label)
{
	struct profile_key k = key("postgresql", "/usr/bin/postgres", "postgres", -1);
	uint32_t f = id("spin");
	char *text;

	profile__reset(prof);
	cr_assert_eq(profile__add(prof, &k, &f, 1, 3), 0);
	k.user = id("alice");
	cr_assert_eq(profile__add(prof, &k, &f, 1, 2), 0);
	text = capture_json();
	cr_assert(strstr(text, "{\"labels\":{\"service_name\":\"postgresql\",\"exe\":\"/usr/bin/postgres\","
			       "\"comm\":\"postgres\"},\"samples\":3"), "%s", text);
	cr_assert(strstr(text, "{\"labels\":{\"service_name\":\"postgresql\",\"exe\":\"/usr/bin/postgres\","
			       "\"comm\":\"postgres\",\"user\":\"alice\"},\"samples\":2"), "%s", text);
	free(text);
	expect_valid("user labels");
}

/* The binaries of the window's unnamed frames, and only theirs, are
 * listed: what names "libz.so.1+0x5d80" later from its debug file. */
Test(json, mappings_of_the_unnamed_frames)
{
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	struct mappings *m = mappings__new();
	uint32_t f[3] = { id("main"), id("app+0x1130"), id("[libz.so.1]") };
	char *text;

	cr_assert_not_null(m);
	cr_assert_eq(mappings__add(m, "libc.so.6", "/usr/lib/libc.so.6", "11aa"), 0);
	cr_assert_eq(mappings__add(m, "app", "/bin/app", "22bb"), 0);
	cr_assert_eq(mappings__add(m, "libz.so.1", "/usr/lib/libz.so.1", NULL), 0);
	profile__reset(prof);
	profile__meta(prof)->mappings = m;
	cr_assert_eq(profile__add(prof, &k, f, 3, 2), 0);
	text = capture_json();
	cr_assert(strstr(text, "],\"mappings\":[{\"module\":\"app\",\"path\":\"/bin/app\",\"build_id\":\"22bb\"},"
			       "{\"module\":\"libz.so.1\",\"path\":\"/usr/lib/libz.so.1\",\"build_id\":\"\"}],"
			       "\"stats\":"), "%s", text);
	cr_assert_null(strstr(text, "libc.so.6"), "%s", text);
	free(text);
	expect_valid("mappings");
	/* none used: none listed */
	profile__reset(prof);
	cr_assert_eq(profile__add(prof, &k, f, 1, 2), 0);
	text = capture_json();
	cr_assert_null(strstr(text, "\"mappings\""), "%s", text);
	free(text);
	profile__meta(prof)->mappings = NULL;
	mappings__delete(m);
}
