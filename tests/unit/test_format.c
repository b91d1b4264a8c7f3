/* test_format.c - catalog consistency, value formatting per metric_fmt, csv/json cells, and the
 * dmon/pmon lines byte for byte against nvidia-smi captures (590.48 / 595.71). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "catalog.h"
#include "sample.h"
#include "dmon_format.h"
#include "format.h"
#include "outbuf.h"
#include "pmon_format.h"
#include "query_fields.h"
#include "options.h"

/* ---- catalog ---- */

static void catalog_ids_match_rows(void **state)
{
    (void)state;
    for (int i = 0; i < M_COUNT; i++) {
        assert_int_equal(metric_catalog[i].id, i);
        assert_non_null(metric_catalog[i].field);
        assert_non_null(metric_catalog[i].help);
    }
}

static void catalog_names_unique_and_resolve(void **state)
{
    (void)state;
    for (int i = 0; i < M_COUNT; i++) {
        const metric_def *d = &metric_catalog[i];
        assert_ptr_equal(catalog_find(d->field), d);
        for (int j = i + 1; j < M_COUNT; j++)
            assert_string_not_equal(d->field, metric_catalog[j].field);
        if (!d->aliases)
            continue;
        char copy[256];
        snprintf(copy, sizeof copy, "%s", d->aliases);
        for (char *save = NULL, *a = strtok_r(copy, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
            const metric_def *found = catalog_find(a);
            assert_non_null(found);
            assert_ptr_equal(found, d);
        }
    }
}

static void catalog_dmon_columns(void **state)
{
    (void)state;
    for (int i = 0; i < M_COUNT; i++) {
        const metric_def *d = &metric_catalog[i];
        if (!d->dmon_col) {
            assert_int_equal(d->dmon_group, 0);
            continue;
        }
        assert_non_null(strchr("pucvmet", d->dmon_group));
        assert_true(d->dmon_pos >= 1);
        assert_non_null(d->dmon_unit);
        for (int j = i + 1; j < M_COUNT; j++) {
            const metric_def *e = &metric_catalog[j];
            if (!e->dmon_col)
                continue;
            assert_string_not_equal(d->dmon_col, e->dmon_col);
            assert_false(d->dmon_group == e->dmon_group && d->dmon_pos == e->dmon_pos);
        }
    }
    /* every group has columns */
    for (const char *g = "pucvmet"; *g; g++) {
        dmon_layout l;
        dmon_layout_init(&l, (char[]){*g, 0}, 0, 0);
        assert_true(l.ncols > 0);
    }
}

/* ---- values ---- */

static void check_value(metric_id id, double v, int units, const char *want)
{
    char buf[FMT_CELL_LEN];
    fmt_value(buf, sizeof buf, catalog_get(id), v, units);
    assert_string_equal(buf, want);
}

static void format_each_fmt(void **state)
{
    (void)state;
    check_value(M_MEM_TOTAL, 81559.9, 1, "81559 MiB"); /* MF_FLOOR */
    check_value(M_MEM_USED, 19818.0, 0, "19818");
    check_value(M_POWER_DRAW, 631.953, 1, "631.95 W"); /* MF_FIXED2 */
    check_value(M_POWER_LIMIT, 700, 1, "700.00 W");
    check_value(M_POWER_LIMIT, 700, 0, "700.00");
    check_value(M_UTIL_GPU, 100, 1, "100 %");              /* MF_INT */
    check_value(M_TEMP_GPU, 41, 1, "41");                  /* no unit */
    check_value(M_COMPUTE_CAP, 9.0, 1, "9.0");             /* MF_FIXED1 */
    check_value(M_CER_ACTIVE, 1, 1, "0x0000000000000001"); /* MF_HEX64 */
    check_value(M_CER_SUPPORTED, 0x1FF, 1, "0x00000000000001FF");
    check_value(M_CER_GPU_IDLE, 1, 1, "Active"); /* MF_ACTIVE */
    check_value(M_CER_GPU_IDLE, 0, 1, "Not Active");
    check_value(M_ECC_MODE, 1, 1, "Enabled"); /* MF_ENABLED */
    check_value(M_MIG_MODE, 0, 1, "Disabled");
    check_value(M_REMAP_PENDING, 0, 1, "No"); /* MF_YESNO */
    check_value(M_REMAP_FAILURE, 1, 1, "Yes");
    check_value(M_PSTATE, 0, 1, "P0"); /* MF_PSTATE */
    check_value(M_PSTATE, 8, 1, "P8");
    check_value(M_VIOL_POWER, 0, 1, "0 us");
    check_value(M_CLOCK_SM, 1980, 1, "1980 MHz");
    check_value(M_UTIL_GPU, 42.5, 0, "42"); /* %.0f rounds half to even */
    check_value(M_UTIL_GPU, 43.5, 0, "44");
    check_value(M_ENERGY, 123456789012.0, 1, "123456789012 mJ");
    check_value(M_TEMP_GPU, -5, 1, "-5");
    char b[24];
    assert_int_equal(fmt_int(b, 0), 1);
    assert_string_equal(b, "0");
    fmt_int(b, -9223372036854775807LL - 1);
    assert_string_equal(b, "-9223372036854775808");
}

/* MF_ENUM: each value's name, the number for a value without one */
static void format_enums(void **state)
{
    (void)state;
    static const char *const compute[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    for (int v = 0; v < 4; v++)
        check_value(M_COMPUTE_MODE, v, 1, compute[v]);
    check_value(M_COMPUTE_MODE, 7, 1, "7");
    check_value(M_COMPUTE_MODE, 1.5, 1, "2");
    check_value(M_ADDRESSING_MODE, 1, 1, "HMM");
    check_value(M_GOM_CUR, 2, 1, "Low Double Precision");
    for (int id = 0; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        assert_true((d->fmt == MF_ENUM) == (d->names != NULL));
    }
    gpu_info in;
    gpu_sample s;
    memset(&in, 0, sizeof in);
    memset(&s, 0, sizeof s);
    sample_set(&s, M_COMPUTE_MODE, 3);
    cJSON *j = fmt_json(catalog_get(M_COMPUTE_MODE), &in, &s);
    assert_true(cJSON_IsString(j));
    assert_string_equal(j->valuestring, "Exclusive_Process");
    cJSON_Delete(j);
}

/* Fields nvidia-smi prints under one name and gpuwatch reads once are still separate fields:
 * the header is the name asked for (an alias of one field prints that field's name). */
static void format_smi_field_names(void **state)
{
    (void)state;
    static const struct {
        const char *asked, *header;
    } cases[] = {
        {"pcie.link.gen.gpucurrent", "pcie.link.gen.gpucurrent"},
        {"pcie.link.gen.gpumax", "pcie.link.gen.gpumax"},
        {"power.draw.average", "power.draw.average [W]"},
        {"gpu.power.draw.average", "power.draw.average [W]"},
        {"gpu.power.requested_limit", "power.limit [W]"},
        {"gpu.power.current_limit", "enforced.power.limit [W]"},
        {"clocks.applications.gr", "clocks.applications.graphics [MHz]"},
        {"clocks.default_applications.mem", "clocks.default_applications.memory [MHz]"},
        {"retired_pages.sbe", "retired_pages.single_bit_ecc.count"},
        {"remapped_rows.dbe", "remapped_rows.uncorrectable"},
        {"gpu_operation_mode.pending", "gom.pending"},
        {"inforom.image", "inforom.img"},
        {"ecc.errors.uncorrected.aggregate.sram", "ecc.errors.uncorrected.aggregate.sram"},
        {"clocks_event_reasons_counters.hw_power_brake_slowdown",
         "clocks_event_reasons_counters.hw_power_brake_slowdown [us]"},
    };
    char buf[FMT_CELL_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const metric_def *d = catalog_find(cases[i].asked);
        assert_non_null(d);
        fmt_header(buf, sizeof buf, d, 1);
        assert_string_equal(buf, cases[i].header);
    }
    /* the per-location ECC rows: every location of every block, named as nvidia-smi */
    static const char *const locs[] = {"device_memory", "dram",           "register_file", "l1_cache",
                                       "l2_cache",      "texture_memory", "cbu",           "sram"};
    for (int unc = 0; unc < 2; unc++)
        for (int agg = 0; agg < 2; agg++)
            for (int loc = 0; loc < ECC_NLOC; loc++) {
                char name[128];
                snprintf(name, sizeof name, "ecc.errors.%s.%s.%s", unc ? "uncorrected" : "corrected",
                         agg ? "aggregate" : "volatile", locs[loc]);
                assert_int_equal(catalog_find(name)->id, ecc_loc_id(unc, agg, loc));
            }
    assert_int_equal(ecc_loc_nvml(0), ecc_loc_nvml(1)); /* device_memory and dram: one NVML counter */
    assert_int_equal(ecc_loc_nvml(7), 7);
}

/* The fields gpuwatch does not read: nvidia-smi's header, [N/A], null. */
static void format_not_read_fields(void **state)
{
    (void)state;
    qfields q;
    assert_int_equal(qfields_parse("query", "index,edpp_multiplier,module.power.current_limit,hostname", &q), 0);
    assert_int_equal(q.n, 4);
    char buf[FMT_CELL_LEN];
    qfield_header(buf, sizeof buf, &q.f[1], 1);
    assert_string_equal(buf, "edpp_multiplier [%]");
    qfield_header(buf, sizeof buf, &q.f[2], 1);
    assert_string_equal(buf, "module.enforced.power.limit [W]");
    qfield_header(buf, sizeof buf, &q.f[2], 0);
    assert_string_equal(buf, "module.enforced.power.limit");
    qfield_header(buf, sizeof buf, &q.f[3], 1);
    assert_string_equal(buf, "hostname");
    gpu_info in;
    gpu_sample s;
    memset(&in, 0, sizeof in);
    memset(&s, 0, sizeof s);
    qrow r = {&in, &s, 1};
    qfield_cell(buf, sizeof buf, &q.f[1], &r, 1);
    assert_string_equal(buf, "[N/A]");
    s.status = GPU_LOST;
    qfield_cell(buf, sizeof buf, &q.f[1], &r, 1);
    assert_string_equal(buf, "[GPU is lost]");
    cJSON *j = qfield_json(&q.f[3], &r);
    assert_true(cJSON_IsNull(j));
    cJSON_Delete(j);
    metric_set want;
    qfields_want(&q, &want);
    for (int id = 0; id < M_COUNT; id++)
        assert_false(mset_has(&want, (metric_id)id)); /* nothing to read for them */
}

/* "did you mean" over the catalog: fields and aliases, typos of each kind. */
static void catalog_suggestions(void **state)
{
    (void)state;
    static const struct {
        const char *typed, *want;
    } cases[] = {
        {"temprature.gpu", "temperature.gpu"},  /* a letter left out */
        {"temperature.gup", "temperature.gpu"}, /* two swapped */
        {"memory.usd", "memory.used"},          /* short: one edit */
        {"Utilization.GPU", "utilization.gpu"}, /* case */
        {"power.drawn", "power.draw"},          /* one added */
        {"clocks.sm.current", NULL},            /* words moved: too far */
        {"gpu_nam", "gpu_name"},                /* an alias */
        {"compute_mod", "compute_mode"},        /* a new row */
        {"xyz", NULL},                          /* nothing close */
        {"index", NULL},                        /* exact: no suggestion */
    };
    char out[GW_SUGGEST_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = catalog_suggest(cases[i].typed, out, sizeof out);
        if (cases[i].want) {
            assert_non_null(got);
            assert_string_equal(got, cases[i].want);
        } else {
            assert_null(got);
        }
    }
}

static void format_headers(void **state)
{
    (void)state;
    char buf[FMT_CELL_LEN];
    fmt_header(buf, sizeof buf, catalog_get(M_MEM_USED), 1);
    assert_string_equal(buf, "memory.used [MiB]");
    fmt_header(buf, sizeof buf, catalog_get(M_MEM_USED), 0);
    assert_string_equal(buf, "memory.used");
    fmt_header(buf, sizeof buf, catalog_get(M_TEMP_GPU), 1);
    assert_string_equal(buf, "temperature.gpu");
    fmt_header(buf, sizeof buf, catalog_get(M_VIOL_POWER), 1);
    assert_string_equal(buf, "clocks_event_reasons_counters.sw_power_cap [us]");
    /* an alias prints the canonical name, as nvidia-smi does for gpu_name -> name */
    fmt_header(buf, sizeof buf, catalog_find("gpu_name"), 1);
    assert_string_equal(buf, "name");
}

static void make_gpu(gpu_info *in, gpu_sample *s)
{
    memset(in, 0, sizeof *in);
    memset(s, 0, sizeof *s);
    in->index = 3;
    snprintf(in->str[M_NAME], GW_STR_LEN, "NVIDIA H100 80GB HBM3");
    mset_add(&in->str_present, M_NAME);
    sample_set(s, M_MEM_USED, 19818);
    sample_set(s, M_CER_ACTIVE, 0x5);
    sample_set(s, M_POWER_DRAW, 69.85);
    s->t_us = 1700000000123456ull;
}

static void format_cells(void **state)
{
    (void)state;
    gpu_info in;
    gpu_sample s;
    char buf[FMT_CELL_LEN];
    make_gpu(&in, &s);
    fmt_cell(buf, sizeof buf, catalog_get(M_NAME), &in, &s, 1);
    assert_string_equal(buf, "NVIDIA H100 80GB HBM3");
    fmt_cell(buf, sizeof buf, catalog_get(M_SERIAL), &in, &s, 1);
    assert_string_equal(buf, "[N/A]");
    fmt_cell(buf, sizeof buf, catalog_get(M_INDEX), &in, &s, 1);
    assert_string_equal(buf, "3");
    fmt_cell(buf, sizeof buf, catalog_get(M_FAN_SPEED), &in, &s, 1);
    assert_string_equal(buf, "[N/A]"); /* absent, even with units */
    fmt_cell(buf, sizeof buf, catalog_get(M_FAN_SPEED), &in, &s, 0);
    assert_string_equal(buf, "[N/A]");
    fmt_cell(buf, sizeof buf, catalog_get(M_CER_SW_POWER_CAP), &in, &s, 1);
    assert_string_equal(buf, "Active"); /* bit 0x4 of the mask */
    fmt_cell(buf, sizeof buf, catalog_get(M_CER_HW_SLOWDOWN), &in, &s, 1);
    assert_string_equal(buf, "Not Active");
    s.status = GPU_LOST;
    fmt_cell(buf, sizeof buf, catalog_get(M_MEM_USED), &in, &s, 1);
    assert_string_equal(buf, "[GPU is lost]");
    fmt_cell(buf, sizeof buf, catalog_get(M_NAME), &in, &s, 1);
    assert_string_equal(buf, "NVIDIA H100 80GB HBM3"); /* read before the loss */
    fmt_cell(buf, sizeof buf, catalog_get(M_SERIAL), &in, &s, 1);
    assert_string_equal(buf, "[GPU is lost]"); /* never read */
}

static void format_json_types(void **state)
{
    (void)state;
    gpu_info in;
    gpu_sample s;
    make_gpu(&in, &s);
    cJSON *v = fmt_json(catalog_get(M_MEM_USED), &in, &s);
    assert_true(cJSON_IsNumber(v));
    assert_true(v->valuedouble == 19818);
    cJSON_Delete(v);
    v = fmt_json(catalog_get(M_POWER_DRAW), &in, &s);
    assert_true(fabs(v->valuedouble - 69.85) < 1e-9);
    cJSON_Delete(v);
    v = fmt_json(catalog_get(M_CER_SW_POWER_CAP), &in, &s);
    assert_true(cJSON_IsTrue(v));
    cJSON_Delete(v);
    v = fmt_json(catalog_get(M_CER_ACTIVE), &in, &s);
    assert_string_equal(cJSON_GetStringValue(v), "0x0000000000000005");
    cJSON_Delete(v);
    v = fmt_json(catalog_get(M_FAN_SPEED), &in, &s);
    assert_true(cJSON_IsNull(v));
    cJSON_Delete(v);
    v = fmt_json(catalog_get(M_NAME), &in, &s);
    assert_string_equal(cJSON_GetStringValue(v), "NVIDIA H100 80GB HBM3");
    cJSON_Delete(v);
}

static void query_csv_line(void **state)
{
    (void)state;
    gpu_info in;
    gpu_sample s;
    make_gpu(&in, &s);
    qfields q;
    assert_int_equal(
        qfields_parse("query", "index,gpu_name,memory.used,fan.speed,clocks_throttle_reasons.active,count", &q), 0);
    assert_int_equal(q.n, 6);
    qrow r = {&in, &s, 8};
    char cell[FMT_CELL_LEN], line[512] = "", head[512] = "";
    for (int i = 0; i < q.n; i++) {
        qfield_header(cell, sizeof cell, &q.f[i], 1);
        strcat(head, i ? ", " : "");
        strcat(head, cell);
        qfield_cell(cell, sizeof cell, &q.f[i], &r, 1);
        strcat(line, i ? ", " : "");
        strcat(line, cell);
    }
    assert_string_equal(head, "index, name, memory.used [MiB], fan.speed [%], clocks_event_reasons.active, count");
    assert_string_equal(line, "3, NVIDIA H100 80GB HBM3, 19818 MiB, [N/A], 0x0000000000000005, 8");
    metric_set want;
    qfields_want(&q, &want);
    assert_true(mset_has(&want, M_MEM_USED));
    assert_true(mset_has(&want, M_CER_ACTIVE));
    assert_false(mset_has(&want, M_POWER_DRAW)); /* only what was asked is read */
    assert_int_equal(qfields_parse("query", "index,bogus", &q), GW_ARGS_USAGE);
    assert_int_equal(qfields_parse("query", "all", &q), 0);
    int gpm = 0;
    for (int id = 0; id < M_COUNT; id++)
        gpm += (catalog_get((metric_id)id)->flags & MF_GPM) != 0;
    assert_true(gpm > 0);
    assert_int_equal(q.n, M_COUNT - gpm);                             /* all but the GPM rates */
    assert_int_equal(qfields_parse("query", "gpm.sm_active", &q), 0); /* those when named */
    assert_int_equal(q.n, 1);
}

static void timestamp_format(void **state)
{
    (void)state;
    char buf[64];
    setenv("TZ", "UTC", 1);
    tzset();
    fmt_timestamp(buf, sizeof buf, 1784016758696000ull); /* 2026-07-14 08:12:38.696 UTC */
    assert_string_equal(buf, "2026/07/14 08:12:38.696");
}

/* ---- dmon ---- */

static const char dmon_h1[] = "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n";
static const char dmon_h2[] = "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n";

static void dmon_header_exact(void **state)
{
    (void)state;
    dmon_layout l;
    gw_buf b = {0};
    dmon_layout_init(&l, "puc", 0, 0);
    assert_int_equal(l.ncols, 11);
    dmon_plain_header(&l, &b);
    char want[256];
    snprintf(want, sizeof want, "%s%s", dmon_h1, dmon_h2);
    assert_string_equal(b.data, want);
    buf_release(&b);
}

static void dmon_groups_in_letter_order(void **state)
{
    (void)state;
    dmon_layout l;
    dmon_layout_init(&l, "pcut", 0, 0);
    const char *want[] = {"pwr", "gtemp", "mtemp", "mclk", "pclk",  "sm",   "mem",
                          "enc", "dec",   "jpg",   "ofa",  "rxpci", "txpci"};
    assert_int_equal(l.ncols, 13);
    for (int i = 0; i < 13; i++)
        assert_string_equal(l.cols[i]->dmon_col, want[i]);
    dmon_layout_init(&l, "pucvmet", 0, 0);
    const char *all[] = {"pwr",   "gtemp", "mtemp", "sm",   "mem",  "enc",   "dec",   "jpg", "ofa",   "mclk", "pclk",
                         "pviol", "tviol", "fb",    "bar1", "ccpm", "sbecc", "dbecc", "pci", "rxpci", "txpci"};
    assert_int_equal(l.ncols, 21);
    for (int i = 0; i < 21; i++)
        assert_string_equal(l.cols[i]->dmon_col, all[i]);
}

static void idle_h100(gpu_sample *s, uint64_t t_us)
{
    memset(s, 0, sizeof *s);
    s->t_us = t_us;
    sample_set(s, M_POWER_DRAW, 69.85);
    sample_set(s, M_TEMP_GPU, 41);
    sample_set(s, M_TEMP_MEMORY, 47);
    for (metric_id id = M_UTIL_GPU; id <= M_UTIL_OFA; id++)
        sample_set(s, id, 0);
    sample_set(s, M_CLOCK_MEM, 2619);
    sample_set(s, M_CLOCK_GR, 345);
}

static void dmon_row_exact(void **state)
{
    (void)state;
    dmon_layout l;
    gw_buf b = {0};
    gpu_sample s;
    dmon_layout_init(&l, "puc", 0, 0);
    idle_h100(&s, 1000000);
    dmon_plain_row(&l, &b, 0, &s, NULL);
    assert_string_equal(b.data,
                        "    0     69     41     47      0      0      0      0      0      0   2619    345 \n");
    buf_clear(&b);
    /* GDDR board (RTX 4080): no memory temperature -> '-' */
    mset_del(&s.present, M_TEMP_MEMORY);
    sample_set(&s, M_CLOCK_MEM, 11251);
    dmon_plain_row(&l, &b, 0, &s, NULL);
    assert_string_equal(b.data,
                        "    0     69     41      -      0      0      0      0      0      0  11251    345 \n");
    buf_clear(&b);
    s.status = GPU_LOST;
    dmon_plain_row(&l, &b, 12, &s, NULL);
    assert_string_equal(
        b.data,
        "   12      -      -      -      -      -      -      -      -      -      -      - " DMON_LOST_MARK "\n");
    buf_release(&b);
}

static void dmon_derived_violations(void **state)
{
    (void)state;
    dmon_layout l;
    gw_buf b = {0};
    gpu_sample a, c;
    dmon_layout_init(&l, "vt", 0, 0);
    memset(&a, 0, sizeof a);
    memset(&c, 0, sizeof c);
    a.t_us = 1000000;
    c.t_us = 2000000; /* 1 s later */
    sample_set(&a, M_VIOL_POWER, 5000000);
    sample_set(&c, M_VIOL_POWER, 5250000); /* +0.25 s capped -> 25 % */
    sample_set(&a, M_VIOL_THERMAL, 10);
    sample_set(&c, M_VIOL_THERMAL, 10); /* unchanged -> 0 */
    sample_set(&c, M_PCIE_RX, 123456);  /* KB/s -> 123 MB/s */
    dmon_plain_header(&l, &b);
    assert_string_equal(b.data, "# gpu  pviol  tviol  rxpci  txpci \n# Idx      %   bool   MB/s   MB/s \n");
    buf_clear(&b);
    dmon_plain_row(&l, &b, 0, &a, NULL); /* first row: no interval yet */
    assert_string_equal(b.data, "    0      -      -      -      - \n");
    buf_clear(&b);
    dmon_plain_row(&l, &b, 0, &c, &a);
    assert_string_equal(b.data, "    0     25      0    123      - \n");
    buf_clear(&b);
    sample_set(&c, M_VIOL_THERMAL, 11);
    dmon_plain_row(&l, &b, 0, &c, &a);
    assert_string_equal(b.data, "    0     25      1    123      - \n");
    buf_release(&b);
}

static void dmon_time_columns(void **state)
{
    (void)state;
    dmon_layout l;
    gw_buf b = {0};
    gpu_sample s;
    setenv("TZ", "UTC", 1);
    tzset();
    idle_h100(&s, 1786872154000000ull); /* 2026-08-16 09:22:34 UTC */
    dmon_layout_init(&l, "p", 1, 1);
    dmon_plain_header(&l, &b);
    dmon_plain_row(&l, &b, 0, &s, NULL);
    assert_string_equal(b.data, "#Date        Time         gpu    pwr  gtemp  mtemp \n"
                                "#YYYYMMDD    HH:MM:SS     Idx      W      C      C \n"
                                " 20260816    09:22:34       0     69     41     47 \n");
    buf_clear(&b);
    dmon_layout_init(&l, "p", 0, 1);
    dmon_plain_header(&l, &b);
    dmon_plain_row(&l, &b, 0, &s, NULL);
    assert_string_equal(b.data, "#Time        gpu    pwr  gtemp  mtemp \n"
                                "#HH:MM:SS     Idx      W      C      C \n"
                                " 09:22:34       0     69     41     47 \n");
    buf_release(&b);
}

static void dmon_csv_and_json(void **state)
{
    (void)state;
    dmon_layout l;
    gw_buf b = {0};
    gpu_sample s;
    dmon_layout_init(&l, "p", 0, 0);
    idle_h100(&s, 1000000);
    mset_del(&s.present, M_TEMP_MEMORY);
    dmon_csv_header(&l, &b, 1);
    dmon_csv_row(&l, &b, 1, &s, NULL);
    assert_string_equal(b.data, "gpu, pwr [W], gtemp [C], mtemp [C]\n1, 69, 41, -\n");
    buf_clear(&b);
    dmon_json_row(&l, &b, 1, &s, NULL);
    cJSON *o = cJSON_Parse(b.data);
    assert_non_null(o);
    assert_true(cJSON_GetObjectItem(o, "pwr")->valuedouble == 69);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "mtemp")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "lost")));
    cJSON_Delete(o);
    buf_release(&b);
}

/* ---- pmon ---- */

static void pmon_header_and_rows(void **state)
{
    (void)state;
    pmon_layout l;
    gw_buf b = {0};
    pmon_layout_init(&l, "u", 0, 0);
    pmon_plain_header(&l, &b);
    /* nvidia-smi's header up to ofa, then our user and container columns, then command */
    const char *nv1 = "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa";
    const char *nv2 = "# Idx           #    C/G      %      %      %      %      %      %";
    assert_memory_equal(b.data, nv1, strlen(nv1));
    char *second = strchr(b.data, '\n') + 1;
    assert_memory_equal(second, nv2, strlen(nv2));
    assert_non_null(strstr(b.data, "    user       container               command \n"));
    assert_non_null(strstr(second, "    name       id                      name \n"));
    buf_clear(&b);

    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.pid = 11345;
    p.type = PROC_COMPUTE;
    p.sm_util = 99;
    p.has_sm = 1;
    p.mem_util = 10;
    p.has_memutil = 1;
    snprintf(p.name, sizeof p.name, "/root/tools/gpu_burn");
    snprintf(p.user, sizeof p.user, "alice");
    pmon_line line = {.gpu = 0, .proc = &p};
    pmon_plain_row(&l, &b, &line);
    const char *nvrow = "    0      11345     C     99     10      -      -      -      -";
    assert_memory_equal(b.data, nvrow, strlen(nvrow));
    assert_string_equal(b.data + strlen(nvrow), "    alice      -                       gpu_burn       \n");
    buf_clear(&b);

    line.proc = NULL; /* idle GPU */
    pmon_plain_row(&l, &b, &line);
    const char *idle = "    0          -     -      -      -      -      -      -      -";
    assert_memory_equal(b.data, idle, strlen(idle));
    buf_clear(&b);

    p.type = PROC_COMPUTE | PROC_GRAPHICS;
    snprintf(p.name, sizeof p.name, "plasma-keyboard-extra");
    snprintf(p.container, sizeof p.container, "docker 1a2b");
    line.proc = &p;
    pmon_plain_row(&l, &b, &line);
    assert_non_null(strstr(b.data, "   C+G "));
    assert_non_null(strstr(b.data, " docker_1a2b "));         /* no spaces inside a column */
    assert_non_null(strstr(b.data, "    plasma-keyboard\n")); /* comm length: 15 */
    buf_release(&b);
}

static void pmon_memory_columns(void **state)
{
    (void)state;
    pmon_layout l;
    gw_buf b = {0};
    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.pid = 7;
    p.type = PROC_COMPUTE;
    p.mem_mib = 15690.7;
    p.has_mem = 1;
    pmon_line line = {.gpu = 1, .proc = &p};
    pmon_layout_init(&l, "um", 0, 0);
    pmon_plain_header(&l, &b);
    const char *h = "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm";
    assert_memory_equal(b.data, h, strlen(h));
    buf_clear(&b);
    pmon_plain_row(&l, &b, &line);
    const char *r = "    1          7     C      -      -      -      -      -      -  15690      -    ";
    assert_memory_equal(b.data, r, strlen(r));
    buf_clear(&b);
    pmon_layout_init(&l, "m", 0, 0); /* memory only */
    pmon_plain_row(&l, &b, &line);
    const char *m = "    1          7     C  15690      -    ";
    assert_memory_equal(b.data, m, strlen(m));
    buf_release(&b);
}

static void pmon_type_names(void **state)
{
    (void)state;
    assert_string_equal(pmon_type(PROC_COMPUTE), "C");
    assert_string_equal(pmon_type(PROC_GRAPHICS), "G");
    assert_string_equal(pmon_type(PROC_COMPUTE | PROC_GRAPHICS), "C+G");
    assert_string_equal(pmon_type(0), "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalog_ids_match_rows),
        cmocka_unit_test(catalog_names_unique_and_resolve),
        cmocka_unit_test(catalog_dmon_columns),
        cmocka_unit_test(format_each_fmt),
        cmocka_unit_test(format_headers),
        cmocka_unit_test(format_enums),
        cmocka_unit_test(format_smi_field_names),
        cmocka_unit_test(format_not_read_fields),
        cmocka_unit_test(catalog_suggestions),
        cmocka_unit_test(format_cells),
        cmocka_unit_test(format_json_types),
        cmocka_unit_test(query_csv_line),
        cmocka_unit_test(timestamp_format),
        cmocka_unit_test(dmon_header_exact),
        cmocka_unit_test(dmon_groups_in_letter_order),
        cmocka_unit_test(dmon_row_exact),
        cmocka_unit_test(dmon_derived_violations),
        cmocka_unit_test(dmon_time_columns),
        cmocka_unit_test(dmon_csv_and_json),
        cmocka_unit_test(pmon_header_and_rows),
        cmocka_unit_test(pmon_memory_columns),
        cmocka_unit_test(pmon_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
