/* options.h - command-line options shared by list/query/dmon/pmon/version (getopt_long based).
 * Each command says which options it takes; unknown options and bad values are usage errors. */
#ifndef GPUWATCH_OPTIONS_H
#define GPUWATCH_OPTIONS_H

#include <stddef.h>

enum {
    OPT_FIELDS = 1u << 0,      /* --fields F,F,...|all */
    OPT_ID = 1u << 1,          /* -i, --id LIST */
    OPT_FORMAT = 1u << 2,      /* --format FMT[,noheader][,nounits] */
    OPT_NOHEADER = 1u << 3,    /* --noheader */
    OPT_NOUNITS = 1u << 4,     /* --nounits */
    OPT_HELP_FIELDS = 1u << 5, /* --help-fields */
    OPT_PROCESSES = 1u << 6,   /* --processes */
    OPT_DELAY = 1u << 7,       /* -d, --delay SECONDS */
    OPT_COUNT = 1u << 8,       /* -c, --count N */
    OPT_SELECT = 1u << 9,      /* -s, --select LETTERS */
    OPT_DATETIME = 1u << 10,   /* -o, --options D|T|DT */
    OPT_QUERY_GPU = 1u << 11,  /* --query-gpu F,F,... (nvidia-smi's spelling of --fields) */
    OPT_QUERY_APPS = 1u << 12, /* --query-compute-apps F,F,... (compute processes, chosen fields) */
    OPT_LOOP = 1u << 13,       /* -l, --loop [SECONDS]; -lms, --loop-ms MILLISECONDS: repeat */
    OPT_FILE = 1u << 14,       /* -f, --filename FILE: write there instead of stdout */
    OPT_DISPLAY = 1u << 15,    /* -d, --display SECTIONS (the -q report; not with OPT_DELAY) */
    OPT_QUERY_ROWS = 1u << 16  /* --query-remapped-rows F,... / --query-retired-pages F,... */
};

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_PLAIN } out_format;

typedef struct cli_spec {
    const char *cmd;     /* "dmon": messages read "gpuwatch dmon: ..." */
    unsigned allowed;    /* OPT_* */
    const char *formats; /* accepted --format names, comma separated; the first is the default */
    const char *letters; /* -s: accepted letters */
    const char *letters_default;
    const char *usage; /* the --help text (printed to stdout) */
} cli_spec;

typedef struct cli_opts {
    const char *fields;  /* NULL = the command's default */
    const char *apps;    /* --query-compute-apps fields, NULL = the default columns */
    const char *rows;    /* --query-remapped-rows / --query-retired-pages fields */
    int rows_kind;       /* 'r' remapped rows, 'p' retired pages, 0 neither */
    const char *file;    /* -f: output file, NULL = stdout */
    const char *display; /* -d of the -q report, NULL = every section */
    double loop_s;       /* -l / -lms: repeat every loop_s seconds; 0 = once */
    int format_given;    /* --format was on the command line */
    int smi_spelling;    /* fields came as --query-gpu or --query-compute-apps (nvidia-smi's spellings) */
    const char *ids;     /* NULL = every GPU */
    out_format format;
    int noheader, nounits, help_fields, processes;
    double delay_s;  /* default 1 */
    long count;      /* 0 = until stopped */
    char select[16]; /* -s letters in the order given, duplicates dropped */
    int show_date, show_time;
} cli_opts;

#define CLI_RUN 0
#define CLI_HELP 1  /* --help printed: exit 0 */
#define CLI_USAGE 2 /* error printed on stderr: exit 2 */

#define CLI_MIN_DELAY_S 0.1
#define CLI_MIN_LOOP_S 0.001 /* -lms 1, as nvidia-smi allows */

/* Parses argv (argv[0] is the command name). Returns CLI_RUN, CLI_HELP or CLI_USAGE. */
int cli_parse(const cli_spec *spec, int argc, char **argv, cli_opts *o);

/* nvidia-smi's loop spellings that getopt cannot parse, rewritten in place in argv[1..argc-1]: "-lms"
 * becomes "--loop-ms", and "-l" / "--loop" with no number after it "--loop=5" (nvidia-smi's default).
 * cli_parse does this for commands that take OPT_LOOP. */
void cli_normalize_loop(int argc, char **argv);

/* The next name of a comma separated list ("a, b,c"): returns where it starts (leading spaces
 * skipped), sets *len to its length (trailing spaces left out) and moves *p past its comma. Loop
 * while **p. */
const char *cli_list_item(const char **p, size_t *len);

/* Prints "gpuwatch CMD: <message>" and the --help hint on stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
