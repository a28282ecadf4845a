/* placeholder: being written */
#include "config.h"
extern int placeholder_symbolize_kallsyms_c;
