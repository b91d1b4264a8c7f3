/* test_history_alert_states.c - the alert engine's state in the history file: what is handed over
 * is what a restart reads back (a newer state replacing the older), with the time the writer was
 * last known running; files without the tables, without the file, or with rows that cannot be
 * right (skipped and counted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "history.h"
#include "hsynth.h"

#define T0 1764673200000000ll
#define SEC 1000000ll

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw-hist-alerts-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static history *open_hist(void)
{
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    assert_non_null(h);
    return h;
}

/* n samples of 2 GPUs from T0, one a second. */
static void record(history *h, int n)
{
    hsynth_gpu sg[2];
    for (int g = 0; g < 2; g++)
        hsynth_init(&sg[g], g);
    for (int i = 0; i < n; i++)
        for (int g = 0; g < 2; g++) {
            gpu_sample s;
            hsynth_sample(&sg[g], g, T0 + i * SEC, &s);
            history_record_sample(h, g, NULL, &s);
        }
}

/* A state of n alerts and n / 3 findings; seed varies the texts and times. */
static void make_states(alert_records *r, int n, int seed)
{
    memset(r, 0, sizeof *r);
    r->alerts = calloc((size_t)n + 1, sizeof *r->alerts);
    r->findings = calloc((size_t)n / 3 + 1, sizeof *r->findings);
    for (int i = 0; i < n; i++) {
        alert_record *a = &r->alerts[r->nalerts++];
        char t[256];
        snprintf(t, sizeof t, "%016x/group \"%d\"/Alert\xc3\xa9%d", seed * 7919 + i, seed, i);
        a->rule = strdup(t);
        snprintf(t, sizeof t, "{\"alertname\":\"A%d\",\"gpu\":\"%d\",\"q\":\"a \\\"b\\\" \\\\ c\"}", i, i % 8);
        a->labels = strdup(t);
        snprintf(t, sizeof t, "{\"summary\":\"seed %d, alert %d\"}", seed, i);
        a->annotations = strdup(t);
        a->firing = (i + seed) % 2;
        a->active_at_us = T0 + (seed * 100 + i) * SEC;
        a->fired_at_us = a->firing ? a->active_at_us + 60 * SEC : 0;
        a->last_sent_at_us = a->firing ? a->fired_at_us + i : INT64_MIN / 4;
        a->valid_until_us = a->firing ? a->fired_at_us + 240 * SEC : 0;
        a->keep_firing_since_us = i % 5 == 0 ? a->active_at_us + 7 : 0;
        a->value = i * 1.25 - seed * 1e-7;
    }
    for (int i = 0; i < n / 3; i++) {
        finding_record *f = &r->findings[r->nfindings++];
        f->gpu = i;
        f->level = 1 + (i + seed) % 3;
        snprintf(f->detector, sizeof f->detector, "det_%d_%d", seed, i);
    }
}

/* The same alerts and findings, in any order. */
static void assert_same(const alert_records *a, const alert_records *b)
{
    assert_int_equal(a->nalerts, b->nalerts);
    assert_int_equal(a->nfindings, b->nfindings);
    for (int i = 0; i < a->nalerts; i++) {
        const alert_record *x = &a->alerts[i];
        int found = 0;
        for (int k = 0; k < b->nalerts && !found; k++) {
            const alert_record *y = &b->alerts[k];
            found = !strcmp(x->rule, y->rule) && !strcmp(x->labels, y->labels) &&
                    !strcmp(x->annotations, y->annotations) && x->firing == y->firing &&
                    x->active_at_us == y->active_at_us && x->fired_at_us == y->fired_at_us &&
                    x->last_sent_at_us == y->last_sent_at_us && x->valid_until_us == y->valid_until_us &&
                    x->keep_firing_since_us == y->keep_firing_since_us && x->value == y->value;
        }
        if (!found)
            fail_msg("alert %d (%s %s) not read back", i, x->rule, x->labels);
    }
    for (int i = 0; i < a->nfindings; i++) {
        int found = 0;
        for (int k = 0; k < b->nfindings && !found; k++)
            found = a->findings[i].gpu == b->findings[k].gpu && a->findings[i].level == b->findings[k].level &&
                    !strcmp(a->findings[i].detector, b->findings[k].detector);
        assert_true(found);
    }
}

static void read_back(alert_records *out, int64_t *last_seen, int *skipped)
{
    char err[256];
    assert_int_equal(history_read_alert_states(path, out, last_seen, skipped, err, sizeof err), 0);
}

/* Each state handed over replaces the one before: sizes 0 to 200, then none at all. */
static void test_round_trip(void **st)
{
    (void)st;
    history *h = open_hist();
    record(h, 90);
    static const int sizes[] = {1, 37, 200, 3, 0, 12};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        alert_records in, out;
        make_states(&in, sizes[k], (int)k + 1);
        history_set_alert_states(h, &in);
        assert_int_equal(history_flush(h), 0);
        int64_t last_seen;
        int skipped;
        read_back(&out, &last_seen, &skipped);
        assert_int_equal(skipped, 0);
        assert_same(&in, &out);
        assert_int_equal(last_seen, T0 + 89 * SEC); /* the newest sample, in a checkpoint of an open chunk */
        alert_records_free(&in);
        alert_records_free(&out);
    }
    /* two states handed over before a flush: the newer one is written */
    alert_records a, b, out;
    make_states(&a, 5, 40);
    make_states(&b, 4, 41);
    history_set_alert_states(h, &a);
    history_set_alert_states(h, &b);
    record(h, 120); /* the same first 90 seconds again, and 30 more */
    history_close(h);
    int64_t last_seen;
    int skipped;
    read_back(&out, &last_seen, &skipped);
    assert_same(&b, &out);
    assert_int_equal(last_seen, T0 + 119 * SEC); /* sealed at the close */
    alert_records_free(&a);
    alert_records_free(&b);
    alert_records_free(&out);
}

/* No file, a file with nothing handed over, a file of a version without the tables: no state; a
 * file that is not a database: an error. */
static void test_no_state(void **st)
{
    (void)st;
    alert_records out;
    int64_t last_seen = 1;
    int skipped;
    read_back(&out, &last_seen, &skipped);
    assert_int_equal(out.nalerts + out.nfindings, 0);
    assert_int_equal(last_seen, 0);

    history *h = open_hist();
    record(h, 10);
    history_close(h);
    read_back(&out, &last_seen, &skipped);
    assert_int_equal(out.nalerts + out.nfindings, 0);
    assert_int_equal(last_seen, T0 + 9 * SEC);

    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "DROP TABLE alert_states; DROP TABLE alert_findings;", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    read_back(&out, &last_seen, &skipped);
    assert_int_equal(out.nalerts + out.nfindings, 0);

    unlink(path);
    FILE *f = fopen(path, "w");
    fputs("not a database, only text that goes on long enough to look like a header of something\n", f);
    fclose(f);
    char err[256] = "";
    assert_int_equal(history_read_alert_states(path, &out, &last_seen, &skipped, err, sizeof err), -1);
    assert_true(strstr(err, path) != NULL);
    assert_int_equal(out.nalerts, 0);
}

/* Rows that cannot be right are skipped and counted; the others are read. */
static void test_bad_rows(void **st)
{
    (void)st;
    history *h = open_hist();
    record(h, 10);
    alert_records in;
    make_states(&in, 6, 3);
    history_set_alert_states(h, &in);
    history_close(h);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *big = malloc(HISTORY_ALERT_TEXT_MAX + 10);
    memset(big, 'x', HISTORY_ALERT_TEXT_MAX + 9);
    big[HISTORY_ALERT_TEXT_MAX + 9] = 0;
    char *sql = malloc(HISTORY_ALERT_TEXT_MAX + 512);
    const char *bad[] = {
        "INSERT INTO alert_states VALUES('r', '{}', '{}', 7, 5, 0, 0, 0, 0, 1)",            /* firing is 0 or 1 */
        "INSERT INTO alert_states VALUES('r', '{}', '{}', 0, 0, 0, 0, 0, 0, 1)",            /* never active */
        "INSERT INTO alert_states VALUES('r', '{}', '{}', 1, 50, 10, 0, 0, 0, 1)",          /* fired before active */
        "INSERT INTO alert_findings VALUES(-1, 'thermal', 2)",                              /* no such GPU */
        "INSERT INTO alert_findings VALUES(0, 'thermal', 9)",                               /* no such level */
        "INSERT INTO alert_findings VALUES(0, 'a_detector_name_longer_than_any_id_is', 2)", /* too long */
    };
    int nbad = (int)(sizeof bad / sizeof bad[0]);
    for (int i = 0; i < nbad; i++)
        assert_int_equal(sqlite3_exec(db, bad[i], NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, HISTORY_ALERT_TEXT_MAX + 512, "INSERT INTO alert_states VALUES('r', '%s', '{}', 0, 5, 0, 0, 0, 0, 1)",
             big);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK); /* labels too long */
    sqlite3_close(db);
    alert_records out;
    int64_t last_seen;
    int skipped;
    read_back(&out, &last_seen, &skipped);
    assert_int_equal(skipped, nbad + 1);
    assert_same(&in, &out);
    alert_records_free(&in);
    alert_records_free(&out);
    free(big);
    free(sql);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_rows, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
