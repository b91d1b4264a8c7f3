/* fuzz_parsers.c - the small text parsers every input reaches: the one duration grammar
 * (gw_parse_duration, _us), times (tp_parse_time, and tp_format_rfc3339 of what it gives), sizes
 * (gw_parse_size), GPU index lists (gw_parse_index_list), the series notation of rule tests
 * (series_expand), the aggregate names of range queries, /proc/PID/stat lines
 * (proc_stat_parse), and who a process works for: /proc/PID/cgroup texts, Slurm environments (the
 * raw bytes) and the container text read back (workload.h). Each gets the whole input as text. */
#include "common.h"
#include "diag.h"
#include "proc_stat.h"
#include "query.h"
#include "series_notation.h"
#include "timeparse.h"
#include "text.h"
#include "util.h"
#include "workload.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

/* A promise of the grammar broken: a crash the fuzzer reports. */
static void require(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    if (!s)
        return 0;
    double sec;
    if (gw_parse_duration(s, &sec) == 0)
        require(isfinite(sec) && sec >= 0 && sec <= GW_DURATION_MAX_S);
    int64_t us;
    if (gw_parse_duration_us(s, &us) == 0)
        require(us >= 0 && us <= (int64_t)(GW_DURATION_MAX_S * 1e6));
    int64_t t;
    if (tp_parse_time(s, 1764673200000000ll, &t) == 0) {
        require(t >= 0 && t <= (int64_t)(TP_MAX_UNIX_S * 1e6));
        char out[64];
        tp_format_rfc3339(t, out, sizeof out);
        tp_format_local(t, 3600000000ll, out, sizeof out);
    }
    uint64_t bytes;
    gw_parse_size(s, &bytes);
    unsigned char sel[256];
    gw_parse_index_list(s, sel, 64);
    gw_parse_index_list(s, sel, 256);
    series_values sv = {0};
    char err[256];
    if (series_expand(s, &sv, err, sizeof err) == 0)
        series_values_free(&sv);
    hq_agg agg;
    hq_parse_agg(s, &agg);
    proc_stat ps;
    if (proc_stat_parse(s, &ps) == 0)
        require(strlen(ps.comm) < sizeof ps.comm);
    diag_job_note note;
    if (diag_job_line(s, &note)) {
        const double sizes[] = {note.tried_mib,     note.capacity_mib, note.free_mib,
                                note.allocated_mib, note.reserved_mib, note.unallocated_mib};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            require(isnan(sizes[i]) || (sizes[i] >= 0 && sizes[i] <= 2e9));
        require(note.flushes >= 0);
    }
    workload w, back;
    char form[160], again[160];
    workload_from_cgroup(s, &w);
    workload_slurm_env(&w, (const char *)data, size);
    require(gw_text_is_clean(w.job_name) && gw_text_is_clean(w.unit));
    workload_format(&w, form, sizeof form);
    /* what was found reads back as found, unless its text was cut */
    if (strlen(form) < sizeof form - 1) {
        require(workload_parse(form, &back) == w.kind);
        workload_format(&back, again, sizeof again);
        require(strcmp(form, again) == 0);
    }
    workload_parse(s, &back);
    require(gw_text_is_clean(back.job_name) && gw_text_is_clean(back.unit));
    free(s);
    return 0;
}
