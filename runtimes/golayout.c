/* Go's g, m and gobuf offsets by version (golayout.h says where each
 * comes from). */
#include "config.h"

#include <errno.h>

#include "runtimes/golayout.h"

int golayout__for(const struct goversion *v, struct golayout *out)
{
	unsigned n = goversion__num(v);

	if (v->major != 1 || n < 117)
		return -ENOTSUP;
	out->g_stack = 0;
	out->g_m = 48;
	out->g_sched = 56;
	out->gobuf_sp = 0;
	out->gobuf_pc = 8;
	out->gobuf_bp = n >= 126 ? 40 : 48;
	out->m_g0 = 0;
	out->m_curg = n >= 126 ? 184 : 192;
	out->g_bytes = out->g_sched + out->gobuf_bp + 8;
	return 0;
}
