/* Format names to writers, once for every command. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "export/collapsed.h"
#include "export/encode.h"
#include "export/flamegraph.h"
#include "export/json_dump.h"
#include "export/top.h"
#include "profile/profile.h"

static const struct {
	const char *name;
	enum encode_format f;
} formats[] = {
	{ "top", ENCODE_TOP },       { "json", ENCODE_JSON }, { "collapsed", ENCODE_COLLAPSED },
	{ "pprof", ENCODE_PPROF },   { "svg", ENCODE_SVG },
};

void encode__opts_init(struct encode_opts *o, enum encode_format f)
{
	memset(o, 0, sizeof(*o));
	o->format = f;
	o->top_rows = 20;
}

int encode__parse_format(const char *name, enum encode_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(name, formats[i].name) == 0) {
			*f = formats[i].f;
			return 0;
		}
	return -EINVAL;
}

const char *encode__format_name(enum encode_format f)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].f == f)
			return formats[i].name;
	return "?";
}

int encode__is_binary(enum encode_format f)
{
	return f == ENCODE_PPROF;
}

/* One sample stands for 1/frequency of CPU; the span is the window's. */
static void pprof_defaults(const struct profile *p, struct pprof_opts *po)
{
	const struct profile_meta *m = profile__meta_const(p);

	if (po->period_ns || po->time_ns || po->duration_ns)
		return;
	po->period_ns = m->frequency_hz ? (1000000000ull + m->frequency_hz / 2) / m->frequency_hz : 0;
	po->time_ns = m->start_ns;
	po->duration_ns = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

int encode__write(const struct profile *p, const struct encode_opts *o, FILE *out)
{
	struct flamegraph_opts fo;
	struct pprof_opts po;

	if (o->base && o->format != ENCODE_TOP && o->format != ENCODE_SVG)
		return -EINVAL;
	switch (o->format) {
	case ENCODE_TOP:
		return o->base ? top__write_diff(p, o->base, out, o->top_rows)
			       : top__write(p, o->agent, out, o->top_rows);
	case ENCODE_JSON:
		return json_dump__write(p, o->agent, out);
	case ENCODE_COLLAPSED:
		return collapsed__write(p, out, COLLAPSED_WITH_COMM);
	case ENCODE_PPROF:
		po = o->pprof;
		pprof_defaults(p, &po);
		return pprof__write(p, &po, out);
	case ENCODE_SVG:
		flamegraph__opts_init(&fo);
		fo.title = o->title;
		fo.subtitle = o->subtitle;
		fo.icicle = o->icicle;
		fo.base = o->base;
		return flamegraph__write(p, &fo, out);
	}
	return -EINVAL;
}
