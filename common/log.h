/* Logging for the CLI and daemon layer; stages return codes and never log. */
#ifndef SMOLDER_COMMON_LOG_H
#define SMOLDER_COMMON_LOG_H

#include <syslog.h> /* LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG */

/* Reads JOURNAL_STREAM once: when stderr is the journal, lines get "<N>" prefixes. */
void log__init(const char *progname);
/* Messages above this priority (numerically greater) are dropped. Default LOG_NOTICE. */
void log__set_level(int priority);
int log__level(void);
/* When on, messages go to syslog(3) instead of stderr. */
void log__use_syslog(int on);

void log__msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log__error(...) log__msg(LOG_ERR, __VA_ARGS__)
#define log__warn(...) log__msg(LOG_WARNING, __VA_ARGS__)
#define log__notice(...) log__msg(LOG_NOTICE, __VA_ARGS__)
#define log__info(...) log__msg(LOG_INFO, __VA_ARGS__)
#define log__debug(...) log__msg(LOG_DEBUG, __VA_ARGS__)

#endif
