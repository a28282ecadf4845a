/* Helpers shared by the subcommands (CLI layer: they log). */
#ifndef SMOLDER_COLLECTOR_CLI_COMMON_H
#define SMOLDER_COLLECTOR_CLI_COMMON_H

struct sampler_error;

/* Logs why opening the perf events failed, with the fix for the usual
 * causes (permissions, limits, an event the host lacks). */
void cli__report_open_error(const struct sampler_error *e, int system_wide, const char *event);

#endif
