/* test_pipeline_hosts.c - one scenario fed to both hosts of the pipeline at once: the agent, assembled
 * as its module assembles it (history, alerts, diagnosis), read through its API as `top --host` reads
 * it, and top's local source with its local pipeline, in this process on the same gpusim clock.
 * tests/scenarios/pipeline_hosts.yaml has a hot GPU, an XID, a lost GPU and a power-capped one; the
 * diagnosis runs every 2 s and accepts 2 s of a condition in both. Once both have evaluated the rules
 * twice (the XID and the loss came between) and diagnosed the XID, their alerts (name, firing or
 * pending, summary) and findings (detector, GPUs, severity) are the same sets, and not empty. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lazy_curl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "agent_client.h"
#include "diag.h"
#include "http_server.h"
#include "nvml_backend.h"
#include "plugins.h"
#include "top_model.h"

/* The same diagnosis settings for both: quick runs, 2 s of a condition. */
static const char *DIAG = "diagnosis:\n"
                          "  interval: 2s\n"
                          "  thresholds:\n"
                          "    thermal.sustain_s: 2\n"
                          "    thermal.reason_min_s: 2\n"
                          "    power_cap.min_duration_s: 2\n";

typedef struct alert_key {
    char name[64], summary[200];
    int firing;
} alert_key;

typedef struct finding_key {
    char detector[32];
    int gpus[8], ngpus;
    diag_severity severity;
} finding_key;

static int by_alert(const void *a, const void *b)
{
    const alert_key *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    if (!r)
        r = strcmp(x->summary, y->summary);
    return r ? r : x->firing - y->firing;
}

static int by_finding(const void *a, const void *b)
{
    const finding_key *x = a, *y = b;
    int r = strcmp(x->detector, y->detector);
    if (!r)
        r = memcmp(x->gpus, y->gpus, sizeof x->gpus);
    return r ? r : (int)x->severity - (int)y->severity;
}

static int findings_of(const diag_report *r, finding_key *out, int max)
{
    int n = 0;
    for (int i = 0; i < r->n && n < max; i++) {
        finding_key *k = &out[n++];
        memset(k, 0, sizeof *k);
        snprintf(k->detector, sizeof k->detector, "%s", r->f[i].detector);
        for (int g = 0; g < r->f[i].n_gpus && g < 8; g++)
            k->gpus[k->ngpus++] = r->f[i].gpus[g];
        k->severity = r->f[i].severity;
    }
    qsort(out, (size_t)n, sizeof *out, by_finding);
    return n;
}

static int has_finding(const finding_key *k, int n, const char *detector, int gpu)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(k[i].detector, detector) && k[i].ngpus && k[i].gpus[0] == gpu)
            return 1;
    return 0;
}

static int has_alert(const alert_key *k, int n, const char *name, int firing)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(k[i].name, name) && k[i].firing == firing)
            return 1;
    return 0;
}

/* What top's model shows now. */
static void top_now(top_model *m, alert_key *a, int *na, finding_key *f, int *nf)
{
    pthread_mutex_lock(&m->lock);
    *na = m->nalerts;
    for (int i = 0; i < m->nalerts; i++) {
        memset(&a[i], 0, sizeof a[i]);
        snprintf(a[i].name, sizeof a[i].name, "%s", m->alerts[i].name);
        snprintf(a[i].summary, sizeof a[i].summary, "%s", m->alerts[i].summary);
        a[i].firing = m->alerts[i].firing;
    }
    *nf = m->find.state == FIND_OK ? findings_of(&m->find.r, f, 32) : 0;
    pthread_mutex_unlock(&m->lock);
    qsort(a, (size_t)*na, sizeof *a, by_alert);
}

/* What the agent answers now, decoded as top --host decodes it. */
static int agent_now(agent_client *c, alert_key *a, int *na, finding_key *f, int *nf)
{
    char err[256];
    api_alerts al;
    diag_report r;
    diag_report_init(&r);
    if (agent_client_alerts(c, &al, err, sizeof err) != 0)
        return -1;
    if (agent_client_findings(c, &r, err, sizeof err) != 0) {
        api_alerts_free(&al);
        return -1;
    }
    *na = al.n < 32 ? al.n : 32;
    for (int i = 0; i < *na; i++) {
        memset(&a[i], 0, sizeof a[i]);
        snprintf(a[i].name, sizeof a[i].name, "%s", al.a[i].name);
        snprintf(a[i].summary, sizeof a[i].summary, "%s", al.a[i].summary);
        a[i].firing = al.a[i].firing;
    }
    qsort(a, (size_t)*na, sizeof *a, by_alert);
    *nf = findings_of(&r, f, 32);
    api_alerts_free(&al);
    diag_report_free(&r);
    return 0;
}

/* Both have evaluated after the XID (its alert shows) and diagnosed it (hw_health on GPU 1). */
static int settled(const alert_key *a, int na, const finding_key *f, int nf)
{
    return has_alert(a, na, "GPUXidError", 1) && has_alert(a, na, "GPULost", 1) && has_finding(f, nf, "hw_health", 1);
}

static void test_same_alerts_and_findings(void **st)
{
    (void)st;
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib || access(lib, R_OK) != 0) {
        skip();
        return;
    }
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", GW_SOURCE_DIR "/tests/scenarios/pipeline_hosts.yaml", 1);
    setenv("GPUWATCH_DEFAULT_RULES", GW_SOURCE_DIR "/deploy/rules/gpuwatch-default.yaml", 1);
    gw_log_set_level(GW_LOG_ERROR);
    char dir[] = "/tmp/gw-hosts-XXXXXX";
    assert_non_null(mkdtemp(dir));

    /* the agent */
    char text[1024];
    snprintf(text, sizeof text, "listen: 127.0.0.1:0\ninterval: 250ms\nhistory:\n  path: %s/h.db\n%s", dir, DIAG);
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    assert_int_equal(config_load_string(cfg, text, "agent.yaml"), 0);
    agent_cli cli = {.log_level_set = 1, .log_level = GW_LOG_ERROR};
    agent *a = calloc(1, sizeof *a);
    assert_int_equal(agent_init(a, cfg, &cli), 0);
    const pipeline_plugin *const plugins[] = {&history_plugin, &alerts_plugin, &diagnosis_plugin};
    for (int i = 0; i < 3; i++)
        assert_int_equal(agent_add_plugin(a, plugins[i], a->cfg), 0);
    char err[256];
    assert_int_equal(agent_start(a, err, sizeof err), 0);
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", http_port(a->http));
    http_client_opts ho = {.host = host, .user_agent = "test"};
    agent_client *client = agent_client_open(&ho, err, sizeof err);
    assert_non_null(client);
    agent_client_set_detectors(client, diag_detector_id, diag_detector_count());

    /* top, with the same diagnosis settings read from the same text, and its default thresholds */
    errlist errs = {0};
    gw_doc doc = {0};
    assert_int_equal(doc_load_text(&doc, "top", DIAG, strlen(DIAG), &errs), 0);
    diag_settings diag;
    assert_int_equal(diag_settings_read(&doc, doc_path(&doc, "diagnosis"), &diag), 0);
    doc_free(&doc);
    top_thresholds th = {80, 90, 95, 105};
    static top_model m;
    assert_int_equal(top_model_init(&m), 0);
    top_source src = {0};
    assert_int_equal(top_source_local(&src, &m, &diag, &th, err, sizeof err), 0);

    static alert_key ta[32], aa[32];
    static finding_key tf[32], af[32];
    int nta = 0, naa = 0, ntf = 0, naf = 0, both = 0;
    for (int i = 0; i < 240 && !both; i++) { /* up to 60 s; about 20 s on an idle machine */
        top_source_round(&src, &m);
        top_now(&m, ta, &nta, tf, &ntf);
        both = settled(ta, nta, tf, ntf) && agent_now(client, aa, &naa, af, &naf) == 0 && settled(aa, naa, af, naf);
        if (!both)
            usleep(250000);
    }
    assert_true(both);
    /* the same moment of both: rounds go on while the agent is read, so read top once more after */
    top_source_round(&src, &m);
    top_now(&m, ta, &nta, tf, &ntf);

    assert_int_equal(nta, naa);
    for (int i = 0; i < nta; i++) {
        assert_string_equal(ta[i].name, aa[i].name);
        assert_string_equal(ta[i].summary, aa[i].summary);
        assert_int_equal(ta[i].firing, aa[i].firing);
    }
    assert_int_equal(ntf, naf);
    for (int i = 0; i < ntf; i++)
        assert_int_equal(by_finding(&tf[i], &af[i]), 0);
    /* and not a comparison of nothing: each GPU's trouble is there */
    assert_true(has_alert(ta, nta, "GPUTemperatureCritical", 0)); /* pending: for 1m */
    assert_true(has_finding(tf, ntf, "thermal", 0));
    assert_true(has_finding(tf, ntf, "hw_health", 2)); /* the lost GPU */
    /* top knows the rules' `for` through the engine: a pending alert says when it would fire */
    pthread_mutex_lock(&m.lock);
    int with_for = 0;
    for (int i = 0; i < m.nalerts; i++)
        if (!strcmp(m.alerts[i].name, "GPUTemperatureCritical"))
            with_for = m.alerts[i].for_us == 60000000;
    pthread_mutex_unlock(&m.lock);
    assert_true(with_for);

    top_source_close(&src);
    top_model_free(&m);
    agent_client_close(client);
    agent_stop(a);
    free(a);
    errlist_free(&errs);
    static const char *const files[] = {"h.db", "h.db-wal", "h.db-shm", "h.db-journal"};
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, "%s/%s", dir, files[i]);
        unlink(text);
    }
    rmdir(dir);
}

int main(void)
{
    backend_register(&nvml_backend_ops);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_alerts_and_findings)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
