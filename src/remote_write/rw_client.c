/* rw_client.c - one endpoint's HTTP POSTs with libcurl (see rw_client.h). */
#include "rw_client.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "files.h"
#include "lazy_curl.h"
#include "text.h"
#include "util.h"

#define SECRET_MAX (64u << 10)

struct rw_client {
    const rw_endpoint_settings *ep;
    const volatile int *abort;
    CURL *h;
};

rw_client *rw_client_new(const rw_endpoint_settings *ep, const volatile int *abort, char *err, size_t n)
{
    rw_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    c->ep = ep;
    c->abort = abort;
    c->h = curl_easy_init();
    if (!c->h) {
        snprintf(err, n, "%s", curl_easy_strerror(CURLE_FAILED_INIT));
        free(c);
        return NULL;
    }
    return c;
}

void rw_client_free(rw_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    free(c);
}

double rw_parse_retry_after(const char *value, double now_s)
{
    while (*value == ' ' || *value == '\t')
        value++;
    if (isdigit((unsigned char)*value)) {
        char *end;
        double s = strtod(value, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        return *end == 0 && s >= 0 ? s : -1;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(value, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!end)
        return -1;
    double d = (double)timegm(&tm) - now_s;
    return d > 0 ? d : 0;
}

/* Collects what the answer's headers say. */
static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
    rw_response *r = arg;
    size_t len = size * n;
    char line[256];
    if (len >= sizeof line)
        return len;
    memcpy(line, data, len);
    line[len] = 0;
    char *colon = strchr(line, ':');
    if (!colon)
        return len;
    *colon = 0;
    const char *value = colon + 1;
    if (strcasecmp(line, "Retry-After") == 0) {
        r->retry_after_s = rw_parse_retry_after(value, (double)gw_now_us() / 1e6);
    } else if (strncasecmp(line, "X-Prometheus-Remote-Write-", 26) == 0 && strlen(line) > 34 &&
               strcasecmp(line + strlen(line) - 8, "-Written") == 0) {
        r->written_headers = 1;
        if (strcasecmp(line, "X-Prometheus-Remote-Write-Samples-Written") == 0)
            r->written = strtoll(value, NULL, 10);
    }
    return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    rw_response *r = arg;
    size_t len = size * n, have = strlen(r->body), room = sizeof r->body - 1 - have;
    size_t take = len < room ? len : room;
    memcpy(r->body + have, data, take);
    r->body[have + take] = 0;
    return len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    const rw_client *c = arg;
    return *c->abort ? 1 : 0;
}

/* A secret from its file: the first line, without its line end. NULL (why in err) when it cannot be
 * read or holds a control character (it would end up in a header). */
static char *read_secret(const char *path, char *err, size_t n)
{
    char why[128];
    char *s = gw_read_file(path, SECRET_MAX, NULL, why, sizeof why);
    if (!s) {
        snprintf(err, n, "%s: %s", path, why);
        return NULL;
    }
    s[strcspn(s, "\r\n")] = 0;
    if (!gw_text_is_clean(s) || strchr(s, '\t')) {
        snprintf(err, n, "%s: holds a control character", path);
        free(s);
        return NULL;
    }
    return s;
}

/* The request's headers; NULL with err filled when a secret cannot be read or memory ran out. */
static struct curl_slist *headers(const rw_client *c, int version, char *err, size_t n)
{
    const rw_endpoint_settings *ep = c->ep;
    struct curl_slist *h = NULL, *next;
    const char *fixed[] = {"Content-Encoding: snappy",
                           version == 2 ? "Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request"
                                        : "Content-Type: application/x-protobuf",
                           version == 2 ? "X-Prometheus-Remote-Write-Version: 2.0.0"
                                        : "X-Prometheus-Remote-Write-Version: 0.1.0",
                           "Expect:"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (!(next = curl_slist_append(h, fixed[i])))
            goto oom;
        h = next;
    }
    for (int i = 0; i < ep->nheaders; i++) {
        if (!(next = curl_slist_append(h, ep->headers[i])))
            goto oom;
        h = next;
    }
    if (ep->bearer_file) {
        char *token = read_secret(ep->bearer_file, err, n);
        if (!token) {
            curl_slist_free_all(h);
            return NULL;
        }
        char *line = NULL;
        int ok = asprintf(&line, "Authorization: Bearer %s", token) > 0 && (next = curl_slist_append(h, line));
        free(token);
        free(line);
        if (!ok)
            goto oom;
        h = next;
    }
    return h;
oom:
    curl_slist_free_all(h);
    snprintf(err, n, "out of memory");
    return NULL;
}

int rw_client_post(rw_client *c, const void *body, size_t len, int version, rw_response *r)
{
    const rw_endpoint_settings *ep = c->ep;
    memset(r, 0, sizeof *r);
    r->retry_after_s = -1;
    r->written = -1;
    struct curl_slist *hdr = headers(c, version, r->error, sizeof r->error);
    if (!hdr)
        return -1;
    char *password = NULL;
    if (ep->password_file && !(password = read_secret(ep->password_file, r->error, sizeof r->error))) {
        curl_slist_free_all(hdr);
        return -1;
    }
    CURL *h = c->h;
    curl_easy_setopt(h, CURLOPT_URL, ep->url);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gpuwatch-remote-write");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(ep->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(ep->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    if (ep->username) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, ep->username);
        curl_easy_setopt(h, CURLOPT_PASSWORD, password ? password : ep->password ? ep->password : "");
    }
    if (ep->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, ep->ca_file);
    if (ep->cert_file)
        curl_easy_setopt(h, CURLOPT_SSLCERT, ep->cert_file);
    if (ep->key_file)
        curl_easy_setopt(h, CURLOPT_SSLKEY, ep->key_file);
    if (ep->insecure_skip_verify) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hdr);
    if (password) {
        memset(password, 0, strlen(password));
        free(password);
    }
    gw_clean_text(r->body);
    if (rc != CURLE_OK || status == 0) {
        snprintf(r->error, sizeof r->error, "%s", rc != CURLE_OK ? curl_easy_strerror(rc) : "no HTTP status");
        return -1;
    }
    r->status = status;
    return 0;
}
