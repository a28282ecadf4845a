/* placeholder: being written */
#include "config.h"
extern int placeholder_export_http_sink_c;
