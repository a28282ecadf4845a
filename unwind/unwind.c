/* placeholder: being written */
#include "config.h"
extern int placeholder_unwind_unwind_c;
