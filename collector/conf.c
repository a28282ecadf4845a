/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_config_c;
