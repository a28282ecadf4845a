/* Unit tests of the encoders (JSON dump, collapsed, top) and atomic files. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <pthread.h>
#include <jansson.h>

#include "profile/agent_stats.h"
#include "profile/profile.h"
#include "common/strtab.h"
#include "export/atomic_file.h"
#include "export/collapsed.h"
#include "export/json_dump.h"
#include "export/top.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

static struct strtab *names;
static struct agent_stats agent; /* beside prof, as the sampler keeps it */
static struct profile *prof;
static const char *label_names[] = {"env", "dc"};
static const char *label_values[] = {"prod", "eu-1"};

static uint32_t id(const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

static struct profile_key key(const char *svc, const char *exe, const char *comm, int32_t pid)
{
	struct profile_key k;

	memset(&k, 0, sizeof(k));
	k.service_name = id(svc);
	k.exe = id(exe);
	k.comm = id(comm);
	k.pid = pid;
	return k;
}

/*
 * g1 svc  /bin/app  app   : main;foo_[k] x3, main;bar_[i] x2, (empty) x1
 * g2 svc  /bin/app2 app   : main;foo_[k] x4
 * g3 svc2 /bin/other other pid 42: main;bar_[i];bar_[i] x5, main x1
 * 16 aggregated samples; 2 dropped by profile__drop; 18 decoded.
 */
static void setup(void)
{
	struct profile_meta *m;
	struct agent_stats *s = &agent;
	struct profile_key k1, k2, k3;
	uint32_t mainf, foo, bar;

	names = strtab__new();
	cr_assert_not_null(names);
	prof = profile__new(names);
	cr_assert_not_null(prof);
	mainf = id("main");
	foo = id("foo_[k]");
	bar = id("bar_[i]");
	k1 = key("svc", "/bin/app", "app", -1);
	k2 = key("svc", "/bin/app2", "app", -1);
	k3 = key("svc2", "/bin/other", "other", 42);
	{
		uint32_t mf[] = {mainf, foo}, mb[] = {mainf, bar}, mbb[] = {mainf, bar, bar};

		cr_assert_eq(profile__add(prof, &k1, mf, 2, 3), 0);
		cr_assert_eq(profile__add(prof, &k1, mb, 2, 2), 0);
		cr_assert_eq(profile__add(prof, &k1, NULL, 0, 1), 0);
		cr_assert_eq(profile__add(prof, &k2, mf, 2, 4), 0);
		cr_assert_eq(profile__add(prof, &k3, mbb, 3, 5), 0);
		cr_assert_eq(profile__add(prof, &k3, mf, 1, 1), 0);
	}
	profile__drop(prof, 2); /* e.g. idle-task samples */

	m = profile__meta(prof);
	m->start_ns = 1763740800000000000ull;
	m->end_ns = 1763740810000000000ull;
	m->hostname = "web01";
	m->kernel = "3.10.0-1160.el7.x86_64";
	m->arch = "x86_64";
	m->event_name = "cpu-clock";
	m->frequency_hz = 99;
	m->nlabels = 2;
	m->label_names = label_names;
	m->label_values = label_values;
	memset(s, 0, sizeof(*s));
	s->lost = 3;
	s->throttled = 1;
	s->kernel_only = 1;
	s->idle = 2;
	s->corrupt = 1;
	s->unwind_complete = 14;
	s->unwind_truncated = 1;
	s->unwind_no_cfi = 1;
	s->processes = 41;
	s->binaries = 7;
	s->agent_cpu_ns = 31000000;
	s->agent_rss_bytes = 9000000;
}

static void teardown(void)
{
	profile__delete(prof);
	strtab__delete(names);
}

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

static char *capture_collapsed(unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(collapsed__write(prof, f, flags), 0);
	fclose(f);
	return buf;
}

static char *capture_top(size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(top__write(prof, &agent, f, n), 0);
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
						 "kernel_only", "idle", "corrupt", "unwind", "processes",
						 "binaries", "agent_cpu_ns", "agent_load_cpu_ns", "agent_rss_bytes",
						 "agent_peak_rss_bytes",
						 "spool_dropped", "frequency_configured_hz",
						 "cfi_lookups", "cfi_hits", "cfi_evictions",
						 "sym_lookups", "sym_hits", "sym_evictions",
						 "inline_lookups", "inline_hits", "inline_evictions",
						 "ksym_lookups", "ksym_hits", "ksym_evictions",
						 "debug_bytes", "debug_refused",
						 "names", "names_bytes", "names_compactions"};
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

TestSuite(collapsed, .init = setup, .fini = teardown);

Test(collapsed, with_comm_merges_groups)
{
	char *text = capture_collapsed(COLLAPSED_WITH_COMM);

	cr_assert_str_eq(text,
			 "app 1\n"
			 "app;main;bar_[i] 2\n"
			 "app;main;foo_[k] 7\n"
			 "other;main 1\n"
			 "other;main;bar_[i];bar_[i] 5\n");
	free(text);
}

Test(collapsed, without_comm_skips_empty)
{
	char *text = capture_collapsed(0);

	cr_assert_str_eq(text,
			 "main 1\n"
			 "main;bar_[i] 2\n"
			 "main;bar_[i];bar_[i] 5\n"
			 "main;foo_[k] 7\n");
	free(text);
}

Test(collapsed, sanitizes_and_unknown)
{
	struct profile_key k = key("s", "/e", "we;ird\ncomm", -1);
	uint32_t st[3] = {id("x;y"), 0, 99999};
	char *text;

	profile__reset(prof);
	cr_assert_eq(profile__add(prof, &k, st, 3, 2), 0);
	text = capture_collapsed(COLLAPSED_WITH_COMM);
	cr_assert_str_eq(text, "we:ird?comm;x:y;[unknown];[unknown] 2\n");
	free(text);
}

TestSuite(top, .init = setup, .fini = teardown);

Test(top, self_and_total)
{
	char *text = capture_top(10);
	char *by_total;

	cr_assert(strstr(text, "samples: 16  profiles: 3  processes: 41"), "%s", text);
	by_total = strstr(text, "by total");
	cr_assert_not_null(by_total);
	/* bar_[i]: leaf of 2+5 samples; recursion counted once in total. */
	cr_assert(strstr(text, " 43.75%          7  43.75%          7  bar_[i]\n"), "%s", text);
	cr_assert(strstr(text, " 43.75%          7  43.75%          7  foo_[k]\n"), "%s", text);
	cr_assert(strstr(text, "  6.25%          1  93.75%         15  main\n"), "%s", text);
	/* First row of each table. */
	cr_assert(strstr(text, "function\n 43.75%          7  43.75%          7  bar_[i]\n"), "%s", text);
	cr_assert(strstr(by_total, "function\n  6.25%          1  93.75%         15  main\n"), "%s",
		  text);
	free(text);
}

Test(top, limits_rows_and_width)
{
	char longname[300];
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	uint32_t st[1];
	char *text, *line, *save = NULL;
	int rows = 0;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	st[0] = id(longname);
	cr_assert_eq(profile__add(prof, &k, st, 1, 1000), 0);
	text = capture_top(1);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_assert_leq(strlen(line), 100, "line too wide: %s", line);
		if (strstr(line, "xxx")) {
			rows++;
			cr_assert(strstr(line, "x..."), "long name not cut: %s", line);
		}
	}
	/* n = 1: only the long function (hottest by self and by total). */
	cr_assert_eq(rows, 2);
	free(text);
}

/* Atomic files. */

static char dir[64];

static void mkdir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smolder-test-af-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	umask(022);
}

static void rm_rf(const char *d)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	cr_assert_eq(system(cmd), 0);
}

static void mkdir_teardown(void)
{
	chmod(dir, 0700);
	rm_rf(dir);
}

static size_t count_entries(const char *d)
{
	DIR *dh = opendir(d);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(dh);
	while ((e = readdir(dh)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dh);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[4096];
	size_t n;

	cr_assert_not_null(f, "open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

TestSuite(atomic_file, .init = mkdir_setup, .fini = mkdir_teardown);

Test(atomic_file, write_overwrite_mode)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dump.json", dir);
	cr_assert_eq(atomic_file__write(path, "hello\n", 6, 0600), 0);
	cr_assert_str_eq(slurp(path), "hello\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(atomic_file__write(path, "bye", 3, 0644), 0);
	cr_assert_str_eq(slurp(path), "bye");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_eq(atomic_file__write(path, "", 0, 0600), 0);
	cr_assert_str_eq(slurp(path), "");
	cr_assert_eq(count_entries(dir), 1, "temp files left behind");
}

Test(atomic_file, relative_path)
{
	char cwd[4096];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(atomic_file__write("rel.txt", "r", 1, 0600), 0);
	cr_assert_eq(chdir(cwd), 0);
	cr_assert_eq(count_entries(dir), 1);
}

Test(atomic_file, missing_directory)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/nope/dump.json", dir);
	cr_assert_eq(atomic_file__write(path, "x", 1, 0600), -ENOENT);
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, unwritable_directory)
{
	char path[128];

	if (geteuid() == 0)
		cr_skip_test("root ignores directory permissions (rename_fails covers cleanup)");
	snprintf(path, sizeof(path), "%s/dump.json", dir);
	cr_assert_eq(chmod(dir, 0500), 0);
	cr_assert_eq(atomic_file__write(path, "x", 1, 0600), -EACCES);
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, rename_fails_leaves_nothing)
{
	char path[128], inner[160];

	/* A non-empty directory at path: the temp file is written, the rename
	 * fails, and the temp file must be gone. */
	snprintf(path, sizeof(path), "%s/target", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	cr_assert_eq(atomic_file__write(inner, "k", 1, 0600), 0);
	cr_assert_lt(atomic_file__write(path, "x", 1, 0600), 0);
	cr_assert_eq(count_entries(dir), 1);
	cr_assert_eq(count_entries(path), 1);
}

Test(atomic_file, symlink_target_replaced_not_followed)
{
	char path[128], other[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/link", dir);
	snprintf(other, sizeof(other), "%s/victim", dir);
	cr_assert_eq(atomic_file__write(other, "victim", 6, 0600), 0);
	cr_assert_eq(symlink(other, path), 0);
	cr_assert_eq(atomic_file__write(path, "new", 3, 0600), 0);
	cr_assert_str_eq(slurp(other), "victim");
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
}

static int write_json(void *ctx, FILE *out)
{
	return json_dump__write(ctx, NULL, out);
}

static int fail_midway(void *ctx, FILE *out)
{
	fputs("partial", out);
	return -EIO;
}

Test(atomic_file, write_with_stream)
{
	char path[128];
	struct strtab *t = strtab__new();
	struct profile *p = profile__new(t);
	char *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/d.json", dir);
	cr_assert_eq(atomic_file__write_with(path, 0600, write_json, p), 0);
	cr_assert_eq(json_dump__to_buffer(p, NULL, &buf, &len), 0);
	cr_assert_str_eq(slurp(path), buf);
	/* A failing producer leaves the previous content and no temp file. */
	cr_assert_eq(atomic_file__write_with(path, 0600, fail_midway, NULL), -EIO);
	cr_assert_str_eq(slurp(path), buf);
	cr_assert_eq(count_entries(dir), 1);
	free(buf);
	profile__delete(p);
	strtab__delete(t);
}

/* A device or a FIFO at the target is written in place, never replaced:
 * renaming over /dev/null as root would put a regular file there. */
static void *drain_fifo(void *arg)
{
	char buf[64];
	size_t *got = arg;
	int fd = open("/tmp/smolder-test-fifo", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*got += (size_t)n;
	close(fd);
	return NULL;
}

Test(atomic_file, devices_and_fifos_are_written_in_place)
{
	struct stat st;
	pthread_t th;
	size_t got = 0;

	cr_assert_eq(atomic_file__write("/dev/null", "hello", 5, 0600), 0);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a device");

	unlink("/tmp/smolder-test-fifo");
	cr_assert_eq(mkfifo("/tmp/smolder-test-fifo", 0600), 0);
	cr_assert_eq(pthread_create(&th, NULL, drain_fifo, &got), 0);
	cr_assert_eq(atomic_file__write("/tmp/smolder-test-fifo", "0123456789", 10, 0600), 0);
	pthread_join(th, NULL);
	cr_assert_eq(got, 10);
	cr_assert_eq(lstat("/tmp/smolder-test-fifo", &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	unlink("/tmp/smolder-test-fifo");

	cr_assert_eq(atomic_file__write("/tmp", "x", 1, 0600), -EISDIR);
}
