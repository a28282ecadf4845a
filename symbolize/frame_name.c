/* placeholder: being written */
#include "config.h"
extern int placeholder_symbolize_frame_name_c;
