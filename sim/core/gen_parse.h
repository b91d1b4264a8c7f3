/* gen_parse.h - builds a sim_gen from its YAML form (a number or a one-generator mapping). */
#ifndef GPUSIM_GEN_PARSE_H
#define GPUSIM_GEN_PARSE_H

#include "gen.h"
#include "ydoc.h"

/* dir: the scenario's directory, for csv files given by relative path. NULL on error (in d). */
sim_gen *gen_parse(ydoc *d, const yaml_node_t *n, const char *dir);

/* Loads column `column` of a CSV file (header row, first column = t in seconds) into g->pts.
 * Errors name the CSV file and line, or the node when the file or column is missing. */
int csv_load_series(ydoc *d, const yaml_node_t *file_node, const yaml_node_t *col_node,
                    const char *path, const char *column, sim_gen *g);

#endif
