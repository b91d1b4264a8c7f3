#!/bin/sh
# epilog.sh - Slurm Epilog: ends the gpuwatch record the prolog started (`gpuwatch jobs finish
# slurm-JOBID`): the summary of the job's GPUs over its time (utilization, memory, power, energy,
# throttling, XIDs, the diagnosis findings) from the agent's history, kept in the history file
# (`gpuwatch jobs show slurm-JOBID`) and, with GPUWATCH_REPORT_DIR set (a folder of root's that
# others cannot write to), as an HTML report
# there (slurm-JOBID.html). In slurm.conf: Epilog=/path/to/epilog.sh. Settings as prolog.sh's
# (GPUWATCH, GPUWATCH_DB, GPUWATCH_REPORT_DIR). It never fails: a problem is logged, exit 0.
SLURM_SCRIPT=epilog
. "$(dirname "$0")/common.sh"
# the job script's status: SLURM_JOB_EXIT_CODE2 is "exit:signal"; a signal gives 128+N, as a shell does
status=0
case "${SLURM_JOB_EXIT_CODE2:-}" in
    *[!0-9:]*|'') ;;
    *:0) status=${SLURM_JOB_EXIT_CODE2%%:*} ;;
    *:*) status=$((128 + ${SLURM_JOB_EXIT_CODE2##*:})) ;;
esac
[ "$status" -gt 255 ] 2>/dev/null && status=255
set -- jobs finish "slurm-$SLURM_JOB_ID" --exit "$status" --slurm-job "$SLURM_JOB_ID"
[ -n "${GPUWATCH_DB:-}" ] && set -- "$@" --db "$GPUWATCH_DB"
# reports only into a real folder of ours that no one else may write to: they are written as root
dir=${GPUWATCH_REPORT_DIR:-}
if [ -n "$dir" ]; then
    if [ -d "$dir" ] && [ ! -L "$dir" ] && [ "$(stat -c %u "$dir")" = "$(id -u)" ] &&
        [ $((0$(stat -c %a "$dir") & 022)) -eq 0 ]; then
        set -- "$@" --report "$dir/slurm-$SLURM_JOB_ID.html"
    else
        log "epilog: job $SLURM_JOB_ID: no report: $dir is not a folder of uid $(id -u) closed to others"
    fi
fi
out=$("$GPUWATCH" "$@" 2>&1) || log "epilog: job $SLURM_JOB_ID: $out"
exit 0
