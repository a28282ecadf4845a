/* The configuration keys (the one table of names, kinds and ranges) and
 * setting one of them from text, shared by the file and the command line. */
#ifndef SMOLDER_DAEMON_CONF_KEYS_H
#define SMOLDER_DAEMON_CONF_KEYS_H
#include <stddef.h>

struct conf;

/* key is canonical ('_', or "label.NAME"), v unquoted. Returns 0, or
 * -EINVAL/-ENOMEM with why in msg ("unknown key", "'x' is not a duration
 * (...)", ...). */
int conf_keys__set(struct conf *c, const char *key, const char *v, char *msg, size_t msglen);
/* Keys are echoed into error messages: only printable ASCII may be one. */
int conf_keys__printable(const char *s);

#endif
