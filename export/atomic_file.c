/* placeholder: being written */
#include "config.h"
extern int placeholder_export_atomic_file_c;
