/* args.h - the one command-line parser. A command describes its options in a table of gw_opt rows
 * (spellings, the type of the value, where it goes, its bounds or choices); gw_args_parse walks argv
 * once, checks every value by its type, stores it typed into the command's options struct, and
 * reports the first mistake in one shape, one line on stderr:
 *
 *     gpuwatch CMD: --opt: what was wrong — did you mean '...'?
 *
 * The command then exits 2 (GW_ARGS_USAGE); -h / --help prints its usage on stdout (exit 0). A value
 * is never taken for the command's arguments: an option that needs one takes the next word (or its
 * "=value"), and a word that is not a valid value is an error, not a positional argument.
 * Values the parser cannot check alone (a GPU list against the machine, metric names against the
 * catalog) are GW_OPT_CUSTOM rows whose check is written in the layer that knows them. */
#ifndef GPUWATCH_ARGS_H
#define GPUWATCH_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What gw_args_parse returns; a command exits gw_args_exit(rc) when it is not GW_ARGS_RUN. */
#define GW_ARGS_RUN 0
#define GW_ARGS_HELP 1  /* the usage was printed on stdout: exit 0 */
#define GW_ARGS_USAGE 2 /* one line on stderr: exit 2 */

typedef enum gw_opt_type {
    GW_OPT_FLAG,     /* no value: int, set to 1 */
    GW_OPT_TEXT,     /* a word, not empty: const char * */
    GW_OPT_PATH,     /* a path, not empty; what it names is checked by the command: const char * */
    GW_OPT_FILE,     /* a file to read: exists, is a regular file, readable: const char * */
    GW_OPT_OUTFILE,  /* a file to write: gw_check_writable_path (its folder exists, not a folder): const char * */
    GW_OPT_INT,      /* a whole number within [min, max]: long */
    GW_OPT_NUMBER,   /* a finite number within [min, max]: double */
    GW_OPT_DURATION, /* gw_parse_duration's grammar, seconds within [min, max]: double */
    GW_OPT_SIZE,     /* gw_parse_size's grammar, bytes within [min, max]: uint64_t */
    GW_OPT_TIME,     /* tp_parse_time's grammar (RFC 3339, Unix seconds, a duration before now, now): int64_t us */
    GW_OPT_CHOICE,   /* one of the words of choices ("table,csv,json"): int, its index */
    GW_OPT_CUSTOM    /* check() reads and stores the value */
} gw_opt_type;

/* The value may be left out (FLAG is never given one): "-l" alone, "--wait" alone. Then the next word
 * is the value only when it does not start with '-'; without one, the value is opt->dflt, or check()
 * gets NULL (CUSTOM). */
#define GW_OPT_OPTIONAL_VALUE 1u

typedef struct gw_opt gw_opt;
struct gw_opt {
    const char *names;   /* its spellings, comma separated, each with its dashes: "-i,--id", "--loop-ms,-lms" */
    gw_opt_type type;    /* what the value is */
    size_t off;          /* where it goes: offsetof(the command's options struct, field) */
    double min, max;     /* INT, NUMBER, DURATION, SIZE: bounds (both 0: the type's own) */
    const char *choices; /* CHOICE: the words; CUSTOM: whatever its check reads */
    /* CUSTOM: checks value (NULL: an optional value left out) and stores it into out (the whole
     * options struct; gw_opt_dst gives the row's field). 0, or -1 with why filled: what was wrong,
     * the parser adds "CMD: OPT: " before it. */
    int (*check)(const gw_opt *opt, const char *value, void *out, char *why, size_t n);
    unsigned flags;   /* GW_OPT_OPTIONAL_VALUE */
    const char *dflt; /* the value of an optional one left out */
    const char *hint; /* added to a range error: "(a gpusim scenario's time ends after a week)" */
};

/* The command has these positional arguments: */
#define GW_CMD_REST 1u         /* the first one ends the options: it and what follows are a command line (run's job) */
#define GW_CMD_STOP_UNKNOWN 2u /* an unknown option ends the options silently, left for the caller (a->stop) */

typedef struct gw_cmd gw_cmd;
struct gw_cmd {
    const char *name;   /* "history export": messages read "gpuwatch history export: ..."; NULL: "gpuwatch: ..." */
    const char *prog;   /* NULL: "gpuwatch" */
    const gw_opt *opts; /* rows, ending with one whose names is NULL; NULL: none */
    const char *usage;  /* the --help text, printed on stdout */
    void (*usage_fn)(FILE *f); /* or this, where the text needs values */
    int min_args, max_args;    /* positional arguments: at least, at most (-1: any) */
    const char *args_name;     /* what they are, for "needs FILE": "FILE", "SCENARIO" */
    unsigned flags;            /* GW_CMD_REST, GW_CMD_STOP_UNKNOWN */
    const gw_cmd *const *subs; /* subcommands (NULL-terminated): the first word chooses one */
    int needs_sub;             /* a subcommand must be given */
};

#define GW_ARGS_MAX_OPTS 64 /* rows of one table */

typedef struct gw_args {
    const gw_cmd *cmd; /* the command, or the subcommand the first word chose */
    char **pos;        /* the positional arguments in order, NULL-terminated (moved to the front of argv) */
    int npos;
    int stop;       /* GW_CMD_STOP_UNKNOWN: the index in argv of the unknown option, where nrest words are */
    int nrest;      /* left for the caller (0: none) */
    uint64_t given; /* bit i: row i of cmd->opts was on the command line */
} gw_args;

/* Parses argv (argv[0] the command's name; argv[argc] NULL) for cmd into out (the command's options
 * struct, which it filled with its defaults first). Returns GW_ARGS_RUN, GW_ARGS_HELP (usage printed)
 * or GW_ARGS_USAGE (one line on stderr). argv is reordered as getopt does: the positional arguments
 * move to argv[1..], in their order (what GW_CMD_REST keeps, with its options), and a->pos points
 * there; the values stored point into the strings of argv, which must outlive them. */
int gw_args_parse(const gw_cmd *cmd, int argc, char **argv, void *out, gw_args *a);
/* The row of cmd's options that word ("--db", "--db=x", "-i0") spells, or -1. */
int gw_args_find(const gw_cmd *cmd, const char *word);
/* Whether the option with this spelling (any of its spellings: "--since") was given. */
int gw_args_given(const gw_args *a, const char *name);
/* The exit status of a parse that did not return GW_ARGS_RUN: 0 after --help, 2 after a usage error. */
int gw_args_exit(int rc);

/* The field of out that row opt stores into. */
void *gw_opt_dst(const gw_opt *opt, void *out);
/* Checks value (NULL: an optional value left out) as row opt's type and stores it into out, as the
 * parser does: for a custom check made of typed parts. 0, or -1 with why filled. */
int gw_opt_store(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

/* Prints "gpuwatch CMD: <message>" (cmd's name and program) as one line on stderr; returns
 * GW_ARGS_USAGE. For the mistakes found after parsing (two options that exclude each other). */
int gw_usage_error(const gw_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, by name: "gpuwatch NAME: ..." ("gpuwatch: ..." for NULL or ""). */
int gw_usage_error_named(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What visits a command's options (completion, "did you mean"): a spelling and its row, or a
 * subcommand's name and NULL. */
typedef void gw_opt_visit(const char *name, const gw_opt *opt, void *ctx);
/* Calls fn for each spelling of the options of cmd, or of its subcommand sub (NULL, or a name that is
 * none: cmd's), then for the names of its subcommands. */
void gw_args_each_option(const gw_cmd *cmd, const char *sub, gw_opt_visit *fn, void *ctx);

#endif
