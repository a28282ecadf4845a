/* smolder: entry point and subcommand dispatch. */
#include "config.h"
int main(void) { return 0; }
