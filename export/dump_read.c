/* placeholder: being written */
#include "config.h"
extern int placeholder_export_dump_read_c;
