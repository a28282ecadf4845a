/* The export side built from the configuration, shared by `smolder run` and
 * `smolder upload`: secrets read from their files, the sink created. CLI
 * layer: logs what goes wrong. */
#ifndef SMOLDER_DAEMON_SINK_SETUP_H
#define SMOLDER_DAEMON_SINK_SETUP_H

struct conf;
struct sink;

/* Creates the sink of c->export (not none). should_abort/ctx are passed to
 * the sink (interrupting requests when stopping). Returns 0 and *out, or
 * -errno after logging why. */
int sink_setup__new(const struct conf *c, int (*should_abort)(void *), void *ctx, struct sink **out);

#endif
