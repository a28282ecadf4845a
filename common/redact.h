/* Credentials never reach a log line. A collector URL may carry them in
 * its userinfo (https://user:secret@host/) or its query string (an API key
 * in ?token=...): every URL the agent writes to its logs or to a terminal
 * goes through redact__url first. Thread-safe (no state). */
#ifndef SMOLDER_COMMON_REDACT_H
#define SMOLDER_COMMON_REDACT_H
#include <stddef.h>

/* Writes url with its userinfo replaced by "***" and its query string and
 * fragment by "?***" into buf (always NUL-terminated, cut to size). What is
 * not a URL (no "scheme://") is written as "(not a URL)": a garbled value
 * could be the secret itself. Returns buf. */
const char *redact__url(const char *url, char *buf, size_t size);

/* Whether url holds userinfo or a query string (a credential, maybe). */
int redact__url_has_secret(const char *url);

#endif
