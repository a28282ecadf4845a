/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_profile_c;
