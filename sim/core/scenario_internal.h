/* scenario_internal.h - pieces of the scenario loader shared between its source files. */
#ifndef GPUSIM_SCENARIO_INTERNAL_H
#define GPUSIM_SCENARIO_INTERNAL_H

#include "scenario.h"
#include "gen_parse.h"
#include "doc.h"

int parse_processes(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g, gen_ctx *ctx);
/* `mig:` of a gpu entry (after its processes: their gi/ci must name one of its MIG devices). */
int parse_mig(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g);
/* Processes that name a MIG device (gi, ci) where the entry has none, or none of that name. */
int check_proc_instances(gw_doc *d, const yaml_node_t *procs, const sim_gpu_spec *g);
int parse_events(gw_doc *d, const yaml_node_t *n, scenario *sc);
int parse_faults(gw_doc *d, const yaml_node_t *n, scenario *sc);
/* `topology:` (n may be NULL: the defaults alone); after the GPUs are parsed. */
int parse_topology(gw_doc *d, const yaml_node_t *n, scenario *sc);
void proc_free(sim_proc *p);
/* Gives each GPU its identity (uuid, serial, bus id) and resets the model state. */
void scenario_finish(scenario *sc);

#endif
