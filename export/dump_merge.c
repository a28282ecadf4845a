/* placeholder: being written */
#include "config.h"
extern int placeholder_export_dump_merge_c;
