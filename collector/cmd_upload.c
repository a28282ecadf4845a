/* placeholder: being written */
#include "config.h"
extern int placeholder_collector_cmd_upload_c;
