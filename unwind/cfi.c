/* placeholder: being written */
#include "config.h"
extern int placeholder_unwind_cfi_c;
