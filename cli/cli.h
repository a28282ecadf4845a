/* Subcommands of the smolder binary. Each returns the process exit status:
 * 0 success, 1 runtime failure, 2 usage error. Only this layer logs. */
#ifndef SMOLDER_CLI_CLI_H
#define SMOLDER_CLI_CLI_H

int record_cmd__main(int argc, char **argv);
int probe_cmd__main(int argc, char **argv);
int run_cmd__main(int argc, char **argv);
int upload_cmd__main(int argc, char **argv);
int report_cmd__main(int argc, char **argv);
/* DEBUGINFOD_URLS as smolder was started with (main unsets it); NULL. */
const char *cli__env_debuginfod(void);
int symbolize_cmd__main(int argc, char **argv);

#endif
