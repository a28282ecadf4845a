/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_perf_events_c;
