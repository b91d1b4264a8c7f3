/* diag_render.h - one finding as JSON and as text, shared by the report's renderings
 * (diag_json.c, diag_text.c) and the fleet's (diag_fleet_out.c). Internal to the diagnosis layer. */
#ifndef GPUWATCH_DIAG_RENDER_H
#define GPUWATCH_DIAG_RENDER_H

#include <cjson/cJSON.h>
#include "buf.h"
#include "diag_report.h"

/* The finding as diag_report_json writes it (NULL when out of memory). */
cJSON *diag_finding_to_json(const diag_finding *f);
/* The finding as diag_report_text writes it: heading line, summary, pids, evidence, chart, advice. */
void diag_finding_put_text(gw_buf *b, const diag_finding *f, unsigned flags);

#endif
