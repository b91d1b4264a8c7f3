#!/bin/sh
# prolog.sh - Slurm Prolog: starts the gpuwatch record of the job on this node (`gpuwatch jobs start
# slurm-JOBID`), so that the epilog (epilog.sh) can write its summary from the samples the agent
# records meanwhile. In slurm.conf: Prolog=/path/to/prolog.sh (with PrologFlags=Alloc it runs when
# the job is allocated, before any step). slurmd runs it as root with Slurm's own environment
# (SLURM_JOB_ID, SLURM_JOB_USER, SLURM_JOB_GPUS, SLURM_ARRAY_*); settings come from gpuwatch.env
# beside slurm.conf, else /etc/gpuwatch/slurm.env (common.sh). It never fails the job: a problem is
# logged (syslog, tag gpuwatch-slurm) and the prolog exits 0.
SLURM_SCRIPT=prolog
. "$(dirname "$0")/common.sh"
name="slurm job $SLURM_JOB_ID"
case "${SLURM_ARRAY_JOB_ID:-}:${SLURM_ARRAY_TASK_ID:-}" in
    *[!0-9:]*|:*|*:) ;;
    *) name="slurm job ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}" ;;
esac
[ -n "${SLURM_JOB_NAME:-}" ] && name="$SLURM_JOB_NAME"
gpus=${SLURM_JOB_GPUS:-}
case "$gpus" in *[!0-9,-]*) log "prolog: job $SLURM_JOB_ID: SLURM_JOB_GPUS '$gpus' is not a list of indexes"; gpus= ;; esac
set -- jobs start "slurm-$SLURM_JOB_ID" --name "$name" --user "${SLURM_JOB_USER:-}" --gpus "$gpus" \
    --command "slurm job $SLURM_JOB_ID"
[ -n "${GPUWATCH_DB:-}" ] && set -- "$@" --db "$GPUWATCH_DB"
out=$("$GPUWATCH" "$@" 2>&1) || log "prolog: job $SLURM_JOB_ID: $out"
exit 0
