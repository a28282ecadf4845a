/* placeholder: being written */
#include "config.h"
extern int placeholder_unwind_regs_x86_64_c;
