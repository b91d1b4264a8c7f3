# common.sh - what prolog.sh and epilog.sh share (sourced, not run): the settings, from gpuwatch.env
# beside slurm.conf, else /etc/gpuwatch/slurm.env (shell assignments: GPUWATCH, the program;
# GPUWATCH_DB, the agent's history file; GPUWATCH_REPORT_DIR, the epilog's reports), a log to syslog
# (tag gpuwatch-slurm), and the job id, which must be a number (else the script ends, exit 0).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
for f in "$(dirname "${SLURM_CONF:-/etc/slurm/slurm.conf}")/gpuwatch.env" /etc/gpuwatch/slurm.env; do
    if [ -r "$f" ]; then . "$f"; break; fi
done
GPUWATCH=${GPUWATCH:-gpuwatch}

log() { logger -t gpuwatch-slurm "$*" 2>/dev/null || echo "gpuwatch-slurm: $*" >&2; }

case "${SLURM_JOB_ID:-}" in
    ''|*[!0-9]*) log "$SLURM_SCRIPT: no SLURM_JOB_ID"; exit 0 ;;
esac
