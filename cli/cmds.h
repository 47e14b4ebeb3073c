/* The subcommands, as git's builtin.h: cmd_X runs `sitescout X`, cmd_X_usage prints its help. */
#ifndef SITESCOUT_CLI_CMDS_H
#define SITESCOUT_CLI_CMDS_H

/*
 * cmd_X(argc, argv): argv[0] is the command name, the rest its arguments (main has
 * already answered --help). Returns the exit status: CLI_OK, CLI_FAIL or CLI_USAGE.
 */
int cmd_crawl(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_judge(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_worker(int argc, char **argv);

/* The full --help text, to stdout. */
void cmd_crawl_usage(void);
void cmd_db_usage(void);
void cmd_eval_usage(void);
void cmd_experiment_usage(void);
void cmd_export_usage(void);
void cmd_judge_usage(void);
void cmd_label_usage(void);
void cmd_replay_usage(void);
void cmd_serve_usage(void);
void cmd_version_usage(void);
void cmd_worker_usage(void);

#endif
