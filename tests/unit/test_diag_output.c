/* test_diag_output.c - the diagnosis API around the detectors: the window builder (absent values,
 * step signals, events from counters and status, de-duplication, process spans, trim, size), the
 * thresholds by name, the detector ids, the JSON shape and the text rendering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "test_diag_synth.h"

static gpu_sample reading(double t_s, double util)
{
    gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_us = SYN_T0 + (uint64_t)(t_s * 1e6);
    s.status = GPU_OK;
    sample_set(&s, M_UTIL_GPU, util);
    sample_set(&s, M_POWER_ENFORCED_LIMIT, 700);
    sample_set(&s, M_MEM_TOTAL, 81559);
    return s;
}

static void test_window_series(void **st)
{
    (void)st;
    diag_window *w = diag_window_new();
    gpu_info info;
    syn_info(&info, 2, &SYN_MODELS[0]);
    for (int i = 0; i < 10; i++) {
        gpu_sample s = reading(i, 50 + i);
        if (i % 3 == 0)
            sample_set(&s, M_TEMP_GPU, 60); /* only some readings have it */
        diag_window_add_sample(w, 2, &info, &s);
    }
    assert_int_equal(w->n_gpus, 3);
    assert_false(w->gpus[0].known);
    const diag_gpu *g = &w->gpus[2];
    assert_true(g->known);
    assert_string_equal(g->name, SYN_MODELS[0].name);
    assert_int_equal(g->s[DS_UTIL].n, 10);
    assert_int_equal(g->s[DS_TEMP].n, 4); /* absent readings are not stored, not zeros */
    assert_int_equal(g->s[DS_POWER].n, 0);
    assert_int_equal(g->s[DS_POWER_LIMIT].n, 1); /* a step signal keeps changes only */
    assert_float_equal(g->mem_total_mib, 81559, 0);
    assert_true(isnan(g->temp_slowdown_c));
    uint64_t a, b;
    assert_true(diag_window_span(w, &a, &b));
    assert_int_equal(a, SYN_T0);
    assert_int_equal(b, SYN_T0 + 9000000);
    /* out of order readings are dropped */
    gpu_sample old = reading(3.5, 1);
    diag_window_add_sample(w, 2, NULL, &old);
    assert_int_equal(g->s[DS_UTIL].n, 10);
    /* trim: the step signal keeps the value in force at the new start */
    diag_window_trim(w, SYN_T0 + 5000000);
    assert_int_equal(g->s[DS_UTIL].n, 5);
    assert_int_equal(g->s[DS_POWER_LIMIT].n, 1);
    assert_int_equal(g->s[DS_POWER_LIMIT].t[0], SYN_T0 + 5000000);
    assert_float_equal(g->s[DS_POWER_LIMIT].v[0], 700, 0);
    diag_window_free(w);
}

static void test_window_events(void **st)
{
    (void)st;
    diag_window *w = diag_window_new();
    for (int i = 0; i < 20; i++) {
        gpu_sample s = reading(i, 90);
        sample_set(&s, M_XID_COUNT, i < 5 ? 3 : (i < 12 ? 4 : 6)); /* 3 before the window: not events */
        sample_set(&s, M_XID_LAST, i < 5 ? 13 : (i < 12 ? 79 : 48));
        sample_set(&s, M_ECC_DBE_VOL, i < 15 ? 0 : 2);
        sample_set(&s, M_REMAP_PENDING, i >= 16);
        if (i >= 7 && i < 10) {
            memset(&s.present, 0, sizeof s.present);
            s.status = GPU_LOST;
        }
        diag_window_add_sample(w, 0, NULL, &s);
    }
    int xid = 0, lost = 0, back = 0, dbe = 0;
    for (int i = 0; i < w->n_events; i++) {
        const diag_event *e = &w->events[i];
        xid += e->kind == DIAG_EV_XID;
        lost += e->kind == DIAG_EV_GPU_LOST;
        back += e->kind == DIAG_EV_GPU_BACK;
        dbe += e->kind == DIAG_EV_ECC_DBE ? e->count : 0;
        if (e->kind == DIAG_EV_XID && e->code == 48)
            assert_int_equal(e->count, 2);
        if (i > 0)
            assert_true(e->t_us >= w->events[i - 1].t_us);
    }
    assert_int_equal(xid, 2);
    assert_int_equal(lost, 1);
    assert_int_equal(back, 1);
    assert_int_equal(dbe, 2);
    /* row remapping is a step signal: the pending flag, set from the 16th reading */
    const diag_series *pend = &w->gpus[0].s[DS_REMAP_PEND];
    assert_int_equal(pend->n, 2);
    assert_true(pend->v[0] == 0 && pend->v[1] == 1 && pend->t[1] == SYN_T0 + 16000000);
    /* the same event from another source (the history's table) is not counted twice */
    int before = w->n_events;
    diag_window_add_event(w, 0, SYN_T0 + 13000000, DIAG_EV_XID, 48, 2);
    assert_int_equal(w->n_events, before);
    diag_window_add_event(w, 0, SYN_T0 + 1000000, DIAG_EV_XID, 31, 1);
    assert_int_equal(w->n_events, before + 1);
    assert_int_equal(w->events[0].code, 31); /* kept in time order */
    diag_report r;
    diag_report_init(&r);
    diag_run(w, NULL, &r);
    /* the hardware incident (XID 79, lost, XID 48 with its ECC errors) and the pending remap; the
     * application XID 31 seconds before the 79 belongs to that burst, not to the application */
    assert_int_equal(r.n, 2);
    const diag_finding *hw = &r.f[0], *remap = &r.f[1];
    assert_string_equal(hw->detector, "hw_health");
    assert_int_equal(hw->severity, DIAG_CRITICAL); /* worst first */
    assert_string_equal(diag_finding_get(hw, "action")->str, "RESTART_BM");
    assert_string_equal(diag_finding_get(hw, "sympathetic_xids")->str, "31 x1");
    assert_string_equal(remap->detector, "row_remap");
    assert_int_equal(remap->severity, DIAG_WARNING);
    diag_report_free(&r);
    diag_window_free(w);
}

static gpu_proc proc(int gpu, unsigned pid, const char *name, double mem)
{
    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.gpu = gpu;
    p.pid = pid;
    p.mem_mib = mem;
    p.has_mem = 1;
    gw_strlcpy(p.name, name, sizeof p.name);
    gw_strlcpy(p.user, "u", sizeof p.user);
    return p;
}

static void test_window_processes(void **st)
{
    (void)st;
    diag_window *w = diag_window_new();
    for (int i = 0; i < 10; i++) {
        gpu_sample s = reading(i, 50);
        diag_window_add_sample(w, 0, NULL, &s);
        diag_window_add_sample(w, 1, NULL, &s);
        gpu_proc list[3];
        int n = 0;
        if (i < 3 || i >= 6)
            list[n++] = proc(0, 42, "python3", 1000 + i);
        list[n++] = proc(1, 7, "server", 500);
        if (i == 9)
            list[n++] = proc(1, 42, "other", 10); /* a reused pid with another name */
        diag_window_add_processes(w, -1, s.t_us, list, n);
    }
    assert_int_equal(w->n_procs, 3);
    const diag_proc *p = &w->procs[0];
    assert_int_equal(p->pid, 42);
    assert_int_equal(p->gpu, 0);
    assert_int_equal(p->n_spans, 2);
    assert_int_equal(p->spans[0].to_us, SYN_T0 + 2000000);
    assert_int_equal(p->spans[1].from_us, SYN_T0 + 6000000);
    assert_int_equal(p->mem.n, 7);
    assert_int_equal(w->gpus[0].nproc.n, 10);
    assert_float_equal(w->gpus[0].nproc.v[4], 0, 0); /* an empty list says "none", too */
    assert_string_equal(w->procs[2].name, "other");
    diag_window_trim(w, SYN_T0 + 4000000);
    assert_int_equal(w->procs[0].n_spans, 1);
    diag_window_trim(w, SYN_T0 + 9500000);
    assert_int_equal(w->n_procs, 0); /* all last seen before the new start */
    diag_window_free(w);
}

static void test_window_size(void **st)
{
    (void)st;
    /* one hour of one GPU at 1 Hz with every metric the model reads, and a process */
    uint64_t rng = 5;
    syn_spec sp;
    syn_spec_init(&sp, &rng, 1, 3600);
    sp.dt_s = 1;
    sp.gpu[0].model = 0;
    syn_add_seg(&sp.gpu[0], 0, 1e9, PAT_STEADY, 95, 0);
    syn_add_proc(&sp.gpu[0], 1, 0, 1e9, "u", 1000);
    diag_window *w = syn_build(&sp);
    size_t whole = (size_t)w->gpus[0].n_samples * sizeof(gpu_sample);
    print_message("window %zu bytes for %d readings; whole samples %zu\n", diag_window_bytes(w), w->gpus[0].n_samples,
                  whole);
    assert_true(diag_window_bytes(w) < whole / 3);
    diag_window_free(w);
}

static void test_config(void **st)
{
    (void)st;
    diag_config cfg;
    diag_config_defaults(&cfg);
    assert_float_equal(cfg.input_stall.p95_util, 70, 0);
    assert_float_equal(cfg.input_stall.p5_util, 10, 0);
    assert_float_equal(cfg.idle_holding.min_idle_s, 1200, 0);
    assert_float_equal(cfg.memory_full.used_frac, 0.95, 0);
    assert_int_equal(diag_config_set(&cfg, "input_stall.p95_util", 80), 0);
    assert_float_equal(cfg.input_stall.p95_util, 80, 0);
    double v;
    assert_int_equal(diag_config_get(&cfg, "input_stall.p95_util", &v), 0);
    assert_float_equal(v, 80, 0);
    assert_int_equal(diag_config_set(&cfg, "input_stall.nope", 1), -1);
    assert_int_equal(diag_config_set(&cfg, "thermal.gpu_warn_c", -5), -2);
    assert_float_equal(cfg.thermal.gpu_warn_c, 80, 0);
    assert_int_equal(diag_config_set(&cfg, "power_cap.min_share", NAN), -2);
    assert_int_equal(diag_config_get(&cfg, "x", &v), -1);
    /* every name is "<detector>.<threshold>", unique, with its default in range */
    int n = diag_config_count();
    assert_true(n > 40);
    assert_null(diag_config_param(n));
    for (int i = 0; i < n; i++) {
        const diag_param *p = diag_config_param(i);
        assert_true(p->def >= p->min && p->def <= p->max);
        assert_non_null(p->help);
        const char *dot = strchr(p->name, '.');
        assert_non_null(dot);
        int known = strncmp(p->name, "straggler.", 10) == 0; /* a fleet's detector (diag_fleet.h) */
        for (int d = 0; d < diag_detector_count(); d++)
            known |= strncmp(p->name, diag_detector_id(d), (size_t)(dot - p->name)) == 0 &&
                     strlen(diag_detector_id(d)) == (size_t)(dot - p->name);
        assert_true(known);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(p->name, diag_config_param(k)->name);
    }
    /* a detector turned off finds nothing */
    diag_config_defaults(&cfg);
    assert_int_equal(diag_config_set(&cfg, "hw_health.enabled", 0), 0);
    diag_window *w = diag_window_new();
    diag_window_add_event(w, 0, SYN_T0, DIAG_EV_XID, 79, 1);
    diag_report r;
    diag_report_init(&r);
    assert_int_equal(diag_run(w, &cfg, &r), 0);
    assert_int_equal(diag_run(w, NULL, &r), 1);
    diag_report_free(&r);
    diag_window_free(w);
}

static void test_detector_ids(void **st)
{
    (void)st;
    static const char *ids[] = {
        "input_stall", "launch_bound",  "low_util",      "power_cap",  "thermal",         "memory_leak",
        "memory_full", "imbalance",     "idle_holding",  "pcie_bound", "hw_health",       "app_fault",
        "row_remap",   "nvlink_errors", "pcie_degraded", "clocks_low", "collective_hang", "alloc_fragmentation"};
    int n = (int)(sizeof ids / sizeof ids[0]);
    assert_int_equal(diag_detector_count(), n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int d = 0; d < diag_detector_count(); d++)
            found += strcmp(ids[i], diag_detector_id(d)) == 0;
        assert_int_equal(found, 1);
    }
    assert_null(diag_detector_id(n));
}

/* A window with findings of several kinds: a stall on GPU 0, an XID 79 on GPU 1. */
static void mixed_report(diag_report *r)
{
    uint64_t rng = 77;
    syn_spec sp;
    syn_spec_init(&sp, &rng, 2, 900);
    sp.dt_s = 1;
    for (int i = 0; i < 2; i++) {
        syn_gpu *g = &sp.gpu[i];
        g->model = 0;
        syn_seg *s = syn_add_seg(g, 0, 1e9, i ? PAT_STEADY : PAT_SQUARE, 95, 2);
        s->period_s = 8;
        s->duty = 0.5;
        syn_add_proc(g, 100 + (unsigned)i, 0, 1e9, i ? "bob" : "carol", 20000);
    }
    sp.gpu[1].xid_at_s[0] = 300;
    sp.gpu[1].xid_code[0] = 79;
    sp.gpu[1].n_xid = 1;
    syn_diagnose(&sp, r);
}

static int rfc3339(const char *s)
{
    /* 2023-11-14T22:13:20.000Z */
    if (strlen(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' ||
        s[23] != 'Z')
        return 0;
    return 1;
}

static void test_json(void **st)
{
    (void)st;
    char t[40];
    diag_format_time(SYN_T0 + 1500, t, sizeof t);
    assert_string_equal(t, "2023-11-14T22:13:20.001Z");
    diag_report r;
    mixed_report(&r);
    assert_int_equal(r.n, 2);
    char *text = diag_report_json(&r, 0);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *arr = cJSON_GetObjectItem(root, "findings");
    assert_true(cJSON_IsArray(arr));
    assert_int_equal(cJSON_GetArraySize(arr), 2);
    int last_rank = 3;
    cJSON *f;
    cJSON_ArrayForEach(f, arr)
    {
        const char *det = cJSON_GetStringValue(cJSON_GetObjectItem(f, "detector"));
        assert_true(strcmp(det, "input_stall") == 0 || strcmp(det, "hw_health") == 0);
        const char *sev = cJSON_GetStringValue(cJSON_GetObjectItem(f, "severity"));
        int rank = strcmp(sev, "critical") == 0 ? 2 : strcmp(sev, "warning") == 0 ? 1 : 0;
        assert_true(strcmp(sev, "info") == 0 || rank > 0);
        assert_true(rank <= last_rank);
        last_rank = rank;
        cJSON *gpus = cJSON_GetObjectItem(f, "gpus");
        assert_true(cJSON_IsArray(gpus) && cJSON_GetArraySize(gpus) == 1);
        assert_true(cJSON_IsNumber(cJSON_GetArrayItem(gpus, 0)));
        assert_true(rfc3339(cJSON_GetStringValue(cJSON_GetObjectItem(f, "from"))));
        assert_true(rfc3339(cJSON_GetStringValue(cJSON_GetObjectItem(f, "to"))));
        assert_true(cJSON_IsArray(cJSON_GetObjectItem(f, "pids")));
        assert_true(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(f, "summary"))) > 10);
        assert_true(cJSON_IsObject(cJSON_GetObjectItem(f, "evidence")));
        cJSON *adv = cJSON_GetObjectItem(f, "advice");
        assert_true(cJSON_IsArray(adv) && cJSON_GetArraySize(adv) >= 1);
        assert_true(cJSON_IsString(cJSON_GetArrayItem(adv, 0)));
        if (strcmp(det, "input_stall") == 0) {
            cJSON *ev = cJSON_GetObjectItem(f, "evidence");
            assert_float_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "period_s")), 8, 0.8);
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "user")), "carol");
            assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "pids"), 0)), 100);
            cJSON *sig = cJSON_GetObjectItem(f, "signal");
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(sig, "metric")), "utilization.gpu");
            assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(sig, "values")) > 10);
        } else {
            assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(f, "evidence"), "xid")),
                             79);
        }
    }
    cJSON_Delete(root);
    free(text);
    diag_report_free(&r);
    /* no findings: an empty list */
    diag_report empty;
    diag_report_init(&empty);
    text = diag_report_json(&empty, 1);
    root = cJSON_Parse(text);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 0);
    cJSON_Delete(root);
    free(text);
}

static void test_text(void **st)
{
    (void)st;
    diag_report r;
    mixed_report(&r);
    gw_buf b;
    buf_init(&b);
    diag_report_text(&r, &b, 0);
    /* grouped by GPU, the critical one first */
    const char *g1 = strstr(b.data, "\nGPU 1  NVIDIA H100"), *g0 = strstr(b.data, "\nGPU 0  NVIDIA H100");
    assert_non_null(g1);
    assert_non_null(g0);
    assert_true(g1 < g0);
    assert_non_null(strstr(b.data, "CRITICAL hw_health"));
    assert_non_null(strstr(b.data, "WARNING  input_stall"));
    assert_non_null(strstr(b.data, "period_s=8"));
    assert_non_null(strstr(b.data, "2023-11-14T22:"));
    assert_non_null(strstr(b.data, "\u2588")); /* a full block in the chart */
    assert_non_null(strstr(b.data, "    - ")); /* advice */
    buf_clear(&b);
    diag_report_text(&r, &b, DIAG_TEXT_ASCII);
    for (size_t i = 0; i < b.len; i++)
        assert_true((unsigned char)b.data[i] < 0x80);
    assert_non_null(strstr(b.data, "|"));
    buf_clear(&b);
    diag_report_text(&r, &b, DIAG_TEXT_NO_CHART);
    assert_null(strstr(b.data, "\u2588"));
    diag_report_free(&r);
    diag_report empty;
    diag_report_init(&empty);
    buf_clear(&b);
    diag_report_text(&empty, &b, 0);
    assert_non_null(strstr(b.data, "No findings"));
    buf_release(&b);
}

static void test_sort(void **st)
{
    (void)st;
    diag_report r;
    diag_report_init(&r);
    diag_finding *f = diag_report_add(&r, "low_util", DIAG_INFO);
    diag_finding_gpu(f, 0);
    f = diag_report_add(&r, "thermal", DIAG_WARNING);
    diag_finding_gpu(f, 3);
    f->score = 1;
    f = diag_report_add(&r, "power_cap", DIAG_WARNING);
    diag_finding_gpu(f, 1);
    f->score = 2;
    f = diag_report_add(&r, "hw_health", DIAG_CRITICAL);
    diag_finding_gpu(f, 5);
    diag_report_sort(&r);
    assert_string_equal(r.f[0].detector, "hw_health");
    assert_string_equal(r.f[1].detector, "power_cap");
    assert_string_equal(r.f[2].detector, "thermal");
    assert_string_equal(r.f[3].detector, "low_util");
    diag_finding_num(&r.f[0], "a", 1, "");
    diag_finding_num(&r.f[0], "a", 2, ""); /* a key set twice keeps its place */
    assert_int_equal(r.f[0].n_evidence, 1);
    assert_float_equal(diag_finding_get(&r.f[0], "a")->num, 2, 0);
    diag_report_remove(&r, 0);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.f[0].detector, "power_cap");
    diag_report_free(&r);
}

/* A job's allocator messages: both out-of-memory forms in every unit PyTorch prints, the typo of
 * some versions, the flush warning with and without its count; text that only looks like them, or
 * sizes no GPU has, gives nothing or no size. */
static void test_job_lines(void **st)
{
    (void)st;
    diag_job_note n;
    assert_true(diag_job_line("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a "
                              "total capacty of 23.68 GiB of which 0 bytes is free. Of the allocated memory 512.50 KiB "
                              "is allocated by PyTorch, and 1024 bytes is reserved by PyTorch but unallocated.",
                              &n));
    assert_int_equal(n.kind, DIAG_NOTE_OOM);
    assert_int_equal(n.gpu, 3);
    assert_float_equal(n.tried_mib, 20, 1e-9);
    assert_float_equal(n.capacity_mib, 23.68 * 1024, 1e-6);
    assert_float_equal(n.free_mib, 0, 1e-9);
    assert_float_equal(n.allocated_mib, 512.5 / 1024, 1e-9);
    assert_float_equal(n.unallocated_mib, 1.0 / 1024, 1e-9);
    assert_true(diag_job_line("RuntimeError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 79.15 GiB total "
                              "capacity; 12.91 GiB already allocated; 1.02 GiB free; 21.70 GiB reserved in total by "
                              "PyTorch)",
                              &n));
    assert_int_equal(n.gpu, 0);
    assert_float_equal(n.unallocated_mib, (21.70 - 12.91) * 1024, 1e-6);
    assert_true(diag_job_line("[WARNING] [stage3.py:1] 12 pytorch allocator cache flushes since last step. this", &n));
    assert_int_equal(n.kind, DIAG_NOTE_FLUSH);
    assert_int_equal(n.flushes, 12);
    assert_true(diag_job_line("pytorch allocator cache flushes since last step: 3", &n));
    assert_int_equal(n.flushes, 3);
    /* look-alikes and nonsense */
    static const char *const no[] = {"",
                                     "out of memory",
                                     "Tried to allocate 2 GiB",
                                     "loss 0.1 step 3",
                                     "CUDA out of memory. Tried to allocate lots",
                                     "pytorch allocator cache"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(diag_job_line(no[i], &n));
    assert_false(diag_job_line(NULL, &n));
    assert_true(diag_job_line("CUDA out of memory. Tried to allocate 99999999999999.00 GiB. GPU 0 has a total "
                              "capacity of -5.00 GiB of which x is free.",
                              &n) == 0);
    assert_true(diag_job_line("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of -5.00 GiB "
                              "of which x is free. Of the allocated memory is allocated by PyTorch, and GiB is "
                              "reserved by PyTorch but unallocated.",
                              &n));
    assert_true(isnan(n.capacity_mib) && isnan(n.free_mib) && isnan(n.allocated_mib) && isnan(n.unallocated_mib));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_lines),     cmocka_unit_test(test_window_series),
        cmocka_unit_test(test_window_events), cmocka_unit_test(test_window_processes),
        cmocka_unit_test(test_window_size),   cmocka_unit_test(test_config),
        cmocka_unit_test(test_detector_ids),  cmocka_unit_test(test_json),
        cmocka_unit_test(test_text),          cmocka_unit_test(test_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
