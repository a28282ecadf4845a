/* record's result (cli/record_output.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/record_output.h"
#include "collector/sampler.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/units.h"
#include "export/encode.h"
#include "export/out_path.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"

/* Window i's meta: the recording's span and host, its event and rate. */
static void fill_meta(struct sampler *s, size_t i, const struct record_output *o)
{
	struct profile_meta *m = profile__meta(sampler__window_profile(s, i));
	const char *event = sampler__window_event(s, i);

	m->start_ns = o->start_ns;
	m->end_ns = o->end_ns;
	m->hostname = o->uts->nodename;
	m->kernel = o->uts->release;
	m->arch = o->uts->machine;
	m->event_name = event;
	m->event_unit = profile_meta__unit_of(event);
	m->frequency_hz = sampler__window_hz(s, i, o->freq_hz);
}

static int encode(const struct profile *prof, const struct agent_stats *st,
		  enum encode_format format, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	struct encode_opts o;
	int rc;

	if (!f)
		return -errno;
	encode__opts_init(&o, format);
	o.agent = st;
	rc = encode__write(prof, &o, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* Every event's window, one after the other: JSON documents each on its
 * own line, or a top table each. */
static int encode_windows(struct sampler *s, enum encode_format format, char **buf, size_t *len)
{
	size_t i;
	int rc = 0;

	*buf = NULL;
	*len = 0;
	for (i = 0; rc == 0 && i < sampler__nwindows(s); i++) {
		char *one = NULL, *joined;
		size_t n = 0;

		/* tables apart by a blank line; documents are lines already */
		size_t gap = i > 0 && format == ENCODE_TOP;

		rc = encode(sampler__window_profile(s, i), sampler__window_stats(s, i), format, &one, &n);
		if (rc == 0 && !(joined = realloc(*buf, *len + gap + n + 1)))
			rc = -ENOMEM;
		if (rc == 0) {
			memset(joined + *len, '\n', gap);
			memcpy(joined + *len + gap, one, n);
			*buf = joined;
			*len += gap + n;
		}
		free(one);
	}
	return rc;
}

/* To -o or standard output, by deadline_ns when a reader could hold it
 * back (0: no bound). */
static int write_output(struct sampler *s, const struct record_output *o)
{
	uint64_t deadline_ns = o->deadline_ns;
	enum out_path_refusal why = OUT_PATH_OK;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = encode_windows(s, o->format, &buf, &len);
	if (rc < 0) {
		log__error("encoding the profile: %s", strerror(-rc));
		goto out;
	}
	if (o->output)
		rc = out_path__write(o->output, buf, len, 0600, deadline_ns, &why);
	else
		rc = fileio__write_until(STDOUT_FILENO, buf, len, deadline_ns);
	if (rc < 0)
		log__error("%s%s: %s%s", o->output ? "-o " : "writing to ",
			   o->output ? o->output : "standard output", out_path__strerror(rc, why),
			   deadline_ns && (rc == -ETIMEDOUT || rc == -ENXIO) ? " (-d bounds the write too)" : "");
out:
	free(buf);
	return rc;
}

/* "wrote out.json: 1234 samples", and each event's total with two. */
static void log_written(struct sampler *s, const char *output)
{
	char what[160] = "";
	size_t i, off = 0;

	for (i = 0; i < sampler__nwindows(s) && off < sizeof(what); i++) {
		const struct profile *p = sampler__window_profile(s, i);
		const char *ev = sampler__window_event(s, i);
		char v[32];
		int w;

		if (strcmp(profile_meta__unit_of(ev), "nanoseconds") == 0)
			units__format_elapsed(profile__samples(p), v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%llu samples", (unsigned long long)profile__samples(p));
		w = snprintf(what + off, sizeof(what) - off, "%s%s%s%s", i ? ", " : "", v,
			     sampler__nwindows(s) > 1 ? " of " : "",
			     sampler__nwindows(s) > 1 ? ev : "");
		if (w < 0)
			break;
		off += (size_t)w;
	}
	log__info("wrote %s: %s", output, what);
}

int record_output__write(struct sampler *s, const struct record_output *o)
{
	size_t i;
	int rc;

	for (i = 0; i < sampler__nwindows(s); i++)
		fill_meta(s, i, o);
	rc = write_output(s, o);
	if (rc == 0 && o->output)
		log_written(s, o->output);
	return rc;
}
