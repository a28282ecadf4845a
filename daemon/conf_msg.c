/* Messages and checks shared by the configuration readers. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "daemon/conf_msg.h"

void conf_msg__set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* strerror is not thread-safe and the daemon may reload while its uploader
 * runs; strerror_r comes in a GNU and an XSI flavour. */
const char *conf_msg__strerror(int e, char *buf, size_t len)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	return strerror_r(e, buf, len);
#else
	if (strerror_r(e, buf, len) != 0)
		snprintf(buf, len, "error %d", e);
	return buf;
#endif
}

/* A plain memset before free may be optimized away; secrets must not linger. */
void conf_msg__wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

static int is_ctl(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f;
}

int conf_msg__has_ctl(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (is_ctl((unsigned char)s[i]))
			return 1;
	return 0;
}
