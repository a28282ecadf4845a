/* Sink construction from the configuration (secrets from files, never argv). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sink_setup.h"
#include "daemon/conf.h"
#include "common/log.h"
#include "common/redact.h"
#include "export/sink.h"

/* Reads a secret and warns when others may read it too. */
static int secret(const char *path, const char *key, char **out)
{
	char err[512];
	int rc, exposed = 0;

	rc = conf__read_secret_ex(path, out, &exposed, err, sizeof(err));
	if (rc < 0) {
		log__error("%s: %s", key, err);
		return rc;
	}
	if (exposed)
		log__warn("%s: %s is readable by other users; chmod 600 it", key, path);
	return 0;
}

int sink_setup__new(const struct conf *c, int (*should_abort)(void *), void *ctx, struct sink **out)
{
	struct sink_opts o;
	char *token = NULL, *basic = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	o.kind = c->export == CONF_EXPORT_PYROSCOPE ? SINK_PYROSCOPE : SINK_JSON;
	o.url = c->url;
	o.tenant_id = c->tenant_id;
	o.tls_ca_file = c->tls_ca_file;
	o.tls_verify = c->tls_verify;
	o.connect_timeout_ms = (long)(c->connect_timeout_ns / 1000000);
	o.timeout_ms = (long)(c->timeout_ns / 1000000);
	o.should_abort = should_abort;
	o.abort_ctx = ctx;
	if (c->auth_token_file) {
		rc = secret(c->auth_token_file, "auth_token_file", &token);
		if (rc < 0)
			goto out;
		o.bearer_token = token;
	}
	if (c->basic_auth_file) {
		char *colon;

		rc = secret(c->basic_auth_file, "basic_auth_file", &basic);
		if (rc < 0)
			goto out;
		colon = strchr(basic, ':');
		if (!colon) {
			log__error("basic_auth_file: %s: expected 'user:password'", c->basic_auth_file);
			rc = -EINVAL;
			goto out;
		}
		*colon = '\0';
		o.basic_user = basic;
		o.basic_password = colon + 1;
	}
	rc = sink__new(&o, out);
	if (rc < 0) {
		char url[512];

		log__error("export: cannot set up the %s sink for %s: %s",
			   o.kind == SINK_PYROSCOPE ? "pyroscope" : "json",
			   c->url ? redact__url(c->url, url, sizeof(url)) : "(no url)", strerror(-rc));
	}
out:
	/* the sink copied them; wipe our copies of the secrets */
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (basic) {
		memset(basic, 0, strlen(basic) + (o.basic_password ? strlen(o.basic_password) + 1 : 0));
		free(basic);
	}
	return rc;
}
