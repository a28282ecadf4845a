/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_binary_c;
