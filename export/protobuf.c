/* placeholder: being written */
#include "config.h"
extern int placeholder_export_protobuf_c;
