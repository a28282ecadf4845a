/* placeholder: being written */
#include "config.h"
extern int placeholder_symbolize_symbin_c;
