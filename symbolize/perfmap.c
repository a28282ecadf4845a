/* placeholder: being written */
#include "config.h"
extern int placeholder_symbolize_perfmap_c;
