/* test_history_export.c - `history export` of what the history kept as the system said it: process
 * names, users and containers that are not UTF-8, or hold escape sequences, quotes and backslashes,
 * and a GPU name likewise. The exported scenario loads (gpusim needs UTF-8) and says the names
 * cleaned (gw_clean_text). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export.h"
#include "history.h"
#include "hsynth.h"
#include "model.h"
#include "scenario.h"
#include "store.h"
#include "text.h"

#define T0 1764680000000000ll

static void test_export_names(void **state)
{
    (void)state;
    const char *names[] = {"py\xff\xfethon", "\x1b[31mred\x1b[0m", "a\"quote\\back", "caf\xc3\xa9 \xc0\xaf",
                           "\xe2\x82"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char dir[] = "/tmp/gw-export-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char db[256], err[512];
        snprintf(db, sizeof db, "%s/h.db", dir);
        history_config cfg;
        history_config_defaults(&cfg);
        cfg.path = db;
        cfg.no_thread = 1;
        history *h = history_open(&cfg, err, sizeof err);
        assert_non_null(h);
        hsynth_gpu sg;
        hsynth_init(&sg, 0);
        for (int i = 0; i < 30; i++) {
            int64_t t = T0 + (int64_t)i * 1000000;
            gpu_sample s;
            gpu_info info;
            hsynth_sample(&sg, 0, t, &s);
            hsynth_info(0, &info);
            snprintf(info.str[M_NAME], sizeof info.str[M_NAME], "NVIDIA H100 %s", names[k]);
            history_record_sample(h, 0, i == 0 ? &info : NULL, &s);
            gpu_proc p = {.gpu = 0, .pid = 4242, .mem_mib = 1000 + i, .has_mem = 1, .sm_util = 50, .has_sm = 1};
            snprintf(p.name, sizeof p.name, "%s", names[k]);
            snprintf(p.user, sizeof p.user, "u%s", names[k]);
            snprintf(p.container, sizeof p.container, "c%s", names[k]);
            history_record_processes(h, 0, (uint64_t)t, &p, 1);
        }
        assert_int_equal(history_flush(h), 0);
        history_close(h);
        store *st = store_open(db, 1, err, sizeof err);
        assert_non_null(st);
        char out[300];
        snprintf(out, sizeof out, "%s/export", dir);
        assert_int_equal(history_export(st, T0, T0 + 30000000, NULL, out, err, sizeof err), 0);
        store_close(st);
        char yaml[400];
        snprintf(yaml, sizeof yaml, "%s/scenario.yaml", out);
        scenario *sc = scenario_load(yaml, err, sizeof err);
        if (!sc)
            fail_msg("the exported scenario does not load: %s", err);
        assert_int_equal(sc->ngpus, 1);
        char gname[128];
        assert_int_equal(sim_string(sc, 0, M_NAME, gname, sizeof gname), 0);
        assert_true(gw_text_is_clean(gname));
        assert_non_null(strstr(gname, "NVIDIA H100 "));
        sim_proc_sample ps[4];
        int np = sim_processes(sc, 0, 10, ps, 4);
        assert_int_equal(np, 1);
        assert_true(gw_text_is_clean(ps[0].def->name) && gw_text_is_clean(ps[0].def->user));
        assert_true(gw_text_is_clean(ps[0].def->container));
        assert_true(ps[0].def->name[0] != 0);
        scenario_free(sc);
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_export_names)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
