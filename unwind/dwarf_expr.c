/* placeholder: being written */
#include "config.h"
extern int placeholder_unwind_dwarf_expr_c;
