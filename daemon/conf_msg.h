/* What the configuration readers (conf, conf_keys) share: their error
 * messages, echoing user input bounded, and the checks on raw text. */
#ifndef SMOLDER_DAEMON_CONF_MSG_H
#define SMOLDER_DAEMON_CONF_MSG_H
#include <stddef.h>

/* Values echoed back in error messages are cut here so one bad line cannot
 * produce a multi-kilobyte log line: "%." CONF_ECHO_MAX "s". */
#define CONF_ECHO_MAX "128"

/* printf into err (errlen bytes; nothing when err is NULL). */
void conf_msg__set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* strerror, thread-safe, into buf. */
const char *conf_msg__strerror(int e, char *buf, size_t len);
/* Zeroes n bytes of a secret in a way the compiler keeps. */
void conf_msg__wipe(void *p, size_t n);
/* Whether len bytes of s hold a control character (< 0x20 or 0x7f). */
int conf_msg__has_ctl(const char *s, size_t len);

#endif
