/* gen_parse.h - builds a sim_gen from its YAML form (a number or a one-generator mapping). */
#ifndef GPUSIM_GEN_PARSE_H
#define GPUSIM_GEN_PARSE_H

#include "gen.h"
#include "doc.h"

struct csv_table;

/* What generator parsing needs beyond the node: the scenario's directory (csv files given by
 * relative path) and the CSV files read so far (each is read and split once per scenario). */
typedef struct gen_ctx {
    const char *dir;
    struct csv_table *tables;
} gen_ctx;

/* NULL on error (in d). */
sim_gen *gen_parse(gw_doc *d, const yaml_node_t *n, gen_ctx *ctx);

/* Loads column `column` of a CSV file (header row, first column = t in seconds) into g->pts;
 * empty cells are skipped. Errors name the CSV file, line and column, or the node when the
 * file or column is missing. */
int csv_load_series(gw_doc *d, gen_ctx *ctx, const yaml_node_t *file_node, const yaml_node_t *col_node,
                    const char *path, const char *column, sim_gen *g);
/* Frees the CSV files ctx holds. */
void gen_ctx_free(gen_ctx *ctx);

#endif
