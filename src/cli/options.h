/* options.h - the options of the nvidia-smi style commands (list, query, dmon, pmon, version, -q, the
 * summary table): one table of them, each command taking those its spec allows, parsed by the one
 * parser (args.h); unknown options and bad values are usage errors (exit 2). */
#ifndef GPUWATCH_OPTIONS_H
#define GPUWATCH_OPTIONS_H

#include <stddef.h>
#include "args.h"

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
    OPT_QUERY_ROWS = 1u << 16, /* --query-remapped-rows F,... / --query-retired-pages F,... */
    OPT_XML = 1u << 17         /* -x, --xml-format (the -q report as XML) */
};

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_PLAIN } out_format;

typedef struct cli_spec {
    const char *cmd;     /* "dmon": messages read "gpuwatch dmon: ..."; "" for nvidia-smi's own form */
    unsigned allowed;    /* OPT_* */
    const char *formats; /* accepted --format names, comma separated; the first is the default */
    const char *letters; /* -s: accepted letters */
    const char *letters_default;
    const char *usage;   /* the --help text (printed to stdout) */
    const gw_opt *extra; /* rows of the command's own, after the table's (NULL-terminated): they
                          * store into a struct that starts with the cli_opts */
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
    int xml;        /* -x */
    unsigned given; /* the OPT_* of the table's options that were on the command line */
} cli_opts;

/* Parses argv (argv[0] is the command name). Returns GW_ARGS_RUN, GW_ARGS_HELP (usage printed) or
 * GW_ARGS_USAGE (one line on stderr). nvidia-smi's spellings are options of the table: -lms, -l with
 * no value after it (5 s), --format=csv,noheader,nounits. */
int cli_parse(const cli_spec *spec, int argc, char **argv, cli_opts *o);

/* The first long spelling of an OPT_* ("--format"). */
const char *cli_option_name(unsigned opt);
/* Whether word ("--query-gpu=index", "-L") is an option of spec. */
int cli_spec_has(const cli_spec *spec, const char *word);
/* Calls fn for each spelling of the options spec allows (for completion). */
void cli_each_option(const cli_spec *spec, gw_opt_visit *fn, void *ctx);

/* The next name of a comma separated list ("a, b,c"): returns where it starts (leading spaces
 * skipped), sets *len to its length (trailing spaces left out) and moves *p past its comma. Loop
 * while **p. */
const char *cli_list_item(const char **p, size_t *len);

#endif
