/* commands.h - the gpuwatch subcommands; main.c dispatches to these. Each returns the exit status. */
#ifndef GPUWATCH_COMMANDS_H
#define GPUWATCH_COMMANDS_H

int cmd_list(int argc, char **argv);    /* src/cli */
int cmd_query(int argc, char **argv);   /* src/cli */
int cmd_dmon(int argc, char **argv);    /* src/cli */
int cmd_pmon(int argc, char **argv);    /* src/cli */
int cmd_version(int argc, char **argv); /* src/cli */
int cmd_agent(int argc, char **argv);   /* src/agent */
int cmd_config(int argc, char **argv);  /* src/agent: config check */
int cmd_history(int argc, char **argv); /* src/history */
int cmd_events(int argc, char **argv);  /* src/history */
int cmd_top(int argc, char **argv);     /* src/top */
int cmd_rules(int argc, char **argv);   /* src/alerts: rules check / rules test */

#endif
