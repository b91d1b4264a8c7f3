/* test_deploy.c - deploy/kubernetes/ parsed with gpuwatch's own YAML layer and checked for what
 * matters: the DaemonSet sees the host's processes (hostPID), gets NVML through the NVIDIA runtime,
 * mounts the kubelet's log folders read-only where workload.c reads them and the history where the
 * config puts it, requests memory that fits the agent; the ConfigMap's config passes the agent's own
 * checks; the Service, the ServiceMonitor and the scrape example select the agents' pods and port. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "config.h"
#include "doc.h"
#include "rw_settings.h"

static gw_doc docs[8];
static errlist errs;
static int ndocs;

static gw_doc *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/deploy/kubernetes/%s", GW_SOURCE_DIR, name);
    gw_doc *d = &docs[ndocs++];
    if (doc_load_file(d, path, &errs) != 0)
        fail_msg("%s: %s", path, errs.n ? errs.msg[0] : "?");
    return d;
}

/* The node at a path of keys and list indexes, separated by spaces (keys hold dots and slashes):
 * "spec template spec containers 0 ports 0". */
static doc_node *at(gw_doc *d, const char *path)
{
    doc_node *n = doc_root(d);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, " ", &save); k && n; k = strtok_r(NULL, " ", &save))
        n = doc_is_seq(n) ? doc_seq_at(d, n, atoi(k)) : doc_get(d, n, k);
    return n;
}

static const char *text(gw_doc *d, const char *path)
{
    const char *t = doc_text(at(d, path));
    if (!t)
        fail_msg("%s: no %s", d->name, path);
    return t;
}

/* The list item of a sequence whose key has a value. */
static doc_node *item(gw_doc *d, const char *seq, const char *key, const char *value)
{
    doc_node *s = at(d, seq);
    for (int i = 0; s && i < doc_seq_len(s); i++) {
        doc_node *x = doc_seq_at(d, s, i);
        const char *v = doc_text(doc_get(d, x, key));
        if (v && strcmp(v, value) == 0)
            return x;
    }
    fail_msg("%s: no %s with %s=%s", d->name, seq, key, value);
    return NULL;
}

/* A Kubernetes quantity in bytes ("48Mi", "1Gi"). */
static double quantity(const char *q)
{
    char *end;
    double v = strtod(q, &end);
    return v * (strcmp(end, "Ki") == 0   ? 1024.0
                : strcmp(end, "Mi") == 0 ? 1048576.0
                : strcmp(end, "Gi") == 0 ? 1073741824.0
                                         : 1);
}

static void test_daemonset(void **state)
{
    (void)state;
    gw_doc *d = load("daemonset.yaml");
    assert_string_equal(text(d, "kind"), "DaemonSet");
    assert_string_equal(text(d, "spec template spec hostPID"), "true");
    assert_string_equal(text(d, "spec template spec runtimeClassName"), "nvidia");
    assert_string_equal(text(d, "spec selector matchLabels app.kubernetes.io/name"), "gpuwatch");
    assert_string_equal(text(d, "spec template metadata labels app.kubernetes.io/name"), "gpuwatch");
    const char *c = "spec template spec containers 0";
    char p[200];
    snprintf(p, sizeof p, "%s ports 0 containerPort", c);
    assert_string_equal(text(d, p), "9400");
    snprintf(p, sizeof p, "%s ports 0 name", c);
    assert_string_equal(text(d, p), "metrics");
    snprintf(p, sizeof p, "%s args 0", c);
    assert_string_equal(text(d, p), "agent");
    snprintf(p, sizeof p, "%s args 2", c);
    assert_string_equal(text(d, p), "/etc/gpuwatch/gpuwatch.yaml");
    /* the kubelet's folders, read-only, where workload.c reads them */
    snprintf(p, sizeof p, "%s volumeMounts", c);
    doc_node *pods = item(d, p, "mountPath", "/var/log/pods");
    assert_string_equal(doc_text(doc_get(d, pods, "readOnly")), "true");
    doc_node *ctrs = item(d, p, "mountPath", "/var/log/containers");
    assert_string_equal(doc_text(doc_get(d, ctrs, "readOnly")), "true");
    doc_node *hist = item(d, p, "mountPath", "/var/lib/gpuwatch");
    doc_node *vol = item(d, "spec template spec volumes", "name", doc_text(doc_get(d, pods, "name")));
    assert_string_equal(doc_text(doc_get(d, doc_get(d, vol, "hostPath"), "path")), "/var/log/pods");
    vol = item(d, "spec template spec volumes", "name", doc_text(doc_get(d, hist, "name")));
    assert_string_equal(doc_text(doc_get(d, doc_get(d, vol, "hostPath"), "path")), "/var/lib/gpuwatch");
    item(d, "spec template spec volumes", "name", doc_text(doc_get(d, ctrs, "name")));
    /* memory: the request covers the agent (about 20 MB measured, docs/fleet.md) with room; the limit more */
    snprintf(p, sizeof p, "%s resources requests memory", c);
    double req = quantity(text(d, p));
    snprintf(p, sizeof p, "%s resources limits memory", c);
    double lim = quantity(text(d, p));
    assert_true(req >= 32.0 * 1048576 && req <= 128.0 * 1048576);
    assert_true(lim >= 2 * req);
    snprintf(p, sizeof p, "%s env", c);
    assert_string_equal(doc_text(doc_get(d, item(d, p, "name", "NVIDIA_DRIVER_CAPABILITIES"), "value")), "utility");
}

static void test_config(void **state)
{
    (void)state;
    gw_doc *d = load("configmap.yaml");
    assert_string_equal(text(d, "metadata name"), "gpuwatch");
    const char *yaml = text(d, "data gpuwatch.yaml");
    gw_config c;
    config_init(&c);
    assert_int_equal(config_load_string(&c, yaml, "configmap gpuwatch.yaml"), 0);
    static const char *const sections[] = {"history", "alerts", "diagnosis", "remote_write", NULL};
    assert_int_equal(config_check_keys(&c, sections), 0);
    rw_settings s;
    assert_int_equal(rw_settings_read(&c.doc, c.series, &s), 0);
    rw_settings_free(&s);
    const char *path = doc_text(doc_path(&c.doc, "history.path"));
    assert_non_null(path);
    assert_true(strncmp(path, "/var/lib/gpuwatch/", 18) == 0); /* on the hostPath volume */
    assert_true(c.interval <= 1);
    config_free(&c);
    /* the commented remote_write example, uncommented, is a valid section */
    char *copy = strdup(yaml);
    assert_non_null(copy);
    gw_buf b;
    buf_init(&b);
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "# ", 2) == 0 && (strstr(line, "remote_write") || line[2] == ' '))
            line += 2;
        buf_puts(&b, line);
        buf_putc(&b, '\n');
    }
    free(copy);
    config_init(&c);
    assert_int_equal(config_load_string(&c, b.data, "configmap uncommented"), 0);
    assert_int_equal(rw_settings_read(&c.doc, c.series, &s), 0);
    assert_int_equal(s.nendpoints, 1);
    assert_string_equal(s.ep[0].headers[0], "X-Scope-OrgID: gpu-fleet");
    rw_settings_free(&s);
    config_free(&c);
    buf_release(&b);
}

static void test_service_and_monitor(void **state)
{
    (void)state;
    gw_doc *svc = load("service.yaml");
    gw_doc *mon = load("servicemonitor.yaml");
    gw_doc *ns = load("namespace.yaml");
    assert_string_equal(text(svc, "spec selector app.kubernetes.io/name"), "gpuwatch");
    doc_node *port = item(svc, "spec ports", "name", "metrics");
    assert_string_equal(doc_text(doc_get(svc, port, "targetPort")), "metrics");
    assert_string_equal(text(mon, "kind"), "ServiceMonitor");
    assert_string_equal(text(mon, "spec selector matchLabels app.kubernetes.io/name"),
                        text(svc, "metadata labels app.kubernetes.io/name"));
    assert_string_equal(text(mon, "spec endpoints 0 port"), "metrics");
    assert_string_equal(text(mon, "spec endpoints 0 honorLabels"), "true");
    assert_string_equal(text(mon, "spec namespaceSelector matchNames 0"), text(ns, "metadata name"));
    assert_string_equal(text(svc, "metadata namespace"), text(ns, "metadata name"));
}

static void test_scrape_example(void **state)
{
    (void)state;
    gw_doc *d = load("prometheus-scrape.yaml");
    assert_string_equal(text(d, "scrape_configs 0 kubernetes_sd_configs 0 role"), "pod");
    assert_string_equal(text(d, "scrape_configs 0 honor_labels"), "true");
    doc_node *keep = item(d, "scrape_configs 0 relabel_configs", "regex", "gpuwatch");
    assert_string_equal(doc_text(doc_get(d, keep, "action")), "keep");
    assert_string_equal(doc_text(doc_seq_at(d, doc_get(d, keep, "source_labels"), 0)),
                        "__meta_kubernetes_pod_label_app_kubernetes_io_name");
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < ndocs; i++)
        doc_free(&docs[i]);
    ndocs = 0;
    errlist_free(&errs);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_daemonset, teardown),
        cmocka_unit_test_teardown(test_config, teardown),
        cmocka_unit_test_teardown(test_service_and_monitor, teardown),
        cmocka_unit_test_teardown(test_scrape_example, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
