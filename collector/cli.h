/* Subcommands of the smolder binary. Each returns the process exit status:
 * 0 success, 1 runtime failure, 2 usage error. Only this layer logs. */
#ifndef SMOLDER_COLLECTOR_CLI_H
#define SMOLDER_COLLECTOR_CLI_H

int cmd_record(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
