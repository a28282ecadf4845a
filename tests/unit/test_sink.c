/* export/sink.c: making a sink of either kind, and the options it refuses. */
#include "config.h"

#include <errno.h>

#include <criterion/criterion.h>

#include "export/sink.h"

Test(sink, new_rejects_bad_options)
{
	struct sink_opts o = { .kind = SINK_JSON, .url = "file:///etc/passwd", .tls_verify = 1 };
	struct sink *s = NULL;

	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.url = "http://127.0.0.1/";
	o.bearer_token = "tok\r\nX-Evil: 1";
	cr_assert_eq(sink__new(&o, &s), -EINVAL, "header injection through the token");
	o.bearer_token = NULL;
	o.kind = (enum sink_kind)7;
	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.kind = SINK_PYROSCOPE;
	o.tenant_id = "t\n1";
	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.tenant_id = "t1";
	cr_assert_eq(sink__new(&o, &s), 0);
	sink__delete(s);
	sink__delete(NULL);
}
