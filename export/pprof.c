/* placeholder: being written */
#include "config.h"
extern int placeholder_export_pprof_c;
