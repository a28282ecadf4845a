/* placeholder: being written */
#include "config.h"
extern int placeholder_export_json_dump_c;
