/* The readers runtimes/ offers: one `struct runtime_reader` each
 * (runtimes/runtime.h). The registry's table (collector/runtimes.c) lists
 * them; nothing else outside runtimes/ names them. */
#ifndef SMOLDER_RUNTIMES_READERS_H
#define SMOLDER_RUNTIMES_READERS_H

#include "runtimes/runtime.h"

extern const struct runtime_reader runtime_hotspot; /* HotSpot JVMs: runtimes/hotspot_reader.c */
extern const struct runtime_reader runtime_cpython; /* CPython 2.7, 3.6-3.13: runtimes/cpython_reader.c */
extern const struct runtime_reader runtime_go;      /* Go's stack roots: runtimes/go_reader.c */
extern const struct runtime_reader runtime_v8;      /* node's V8 9.4-12.4: runtimes/v8_reader.c */
extern const struct runtime_reader runtime_ruby;    /* CRuby 2.0, 2.5-3.3: runtimes/ruby_reader.c */
extern const struct runtime_reader runtime_php;     /* PHP 7.0-8.4 (NTS): runtimes/php_reader.c */
extern const struct runtime_reader runtime_perl;    /* Perl 5.16-5.40: runtimes/perl_reader.c */

#endif
