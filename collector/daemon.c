/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_daemon_c;
