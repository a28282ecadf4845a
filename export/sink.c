/* Sink dispatch: one interface (export/sink.h), two implementations. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/http_sink.h"
#include "export/pyroscope.h"
#include "export/sink.h"

struct sink {
	enum sink_kind kind;
	struct http_sink *json;
	struct pyroscope *pyro;
};

int sink__new(const struct sink_opts *o, struct sink **out)
{
	struct sink *s;
	int err;

	if (!o || !out || (o->kind != SINK_JSON && o->kind != SINK_PYROSCOPE))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->kind = o->kind;
	if (o->kind == SINK_JSON)
		err = http_sink__new(o, &s->json);
	else
		err = pyroscope__new(o, &s->pyro);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void sink__delete(struct sink *s)
{
	if (!s)
		return;
	http_sink__delete(s->json);
	pyroscope__delete(s->pyro);
	free(s);
}

enum sink_result sink__send(struct sink *s, const struct dump *d, const void *body_gz,
			    size_t body_len, char *msg, size_t msglen)
{
	if (s->kind == SINK_PYROSCOPE)
		return pyroscope__send(s->pyro, d, msg, msglen);
	if (!body_gz) {
		/* a caller bug, not the dump's fault, but resending will not help */
		if (msg && msglen)
			snprintf(msg, msglen, "internal: no gzip body to send");
		return SINK_REJECTED;
	}
	return http_sink__send_json(s->json, body_gz, body_len, msg, msglen);
}

uint64_t sink__retry_after_s(const struct sink *s)
{
	return s->kind == SINK_PYROSCOPE ? pyroscope__retry_after_s(s->pyro)
					 : http_sink__retry_after_s(s->json);
}
