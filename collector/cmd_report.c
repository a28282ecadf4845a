/* placeholder: being written */
#include "config.h"
#include "collector/cli.h"
#include "common/log.h"
int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log__error("report: not built yet");
	return 1;
}
