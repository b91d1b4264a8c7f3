/* rw_client.c - one endpoint's POSTs (see rw_client.h): the request's headers, built once for both
 * transports; http:// over rw_http.c, https:// over libcurl. */
#include "rw_client.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "buf.h"
#include "files.h"
#include "lazy_curl.h"
#include "rw_http.h"
#include "text.h"
#include "util.h"

#define SECRET_MAX (64u << 10)
#define MAX_LINES (RW_MAX_HEADERS + 8)

struct rw_client {
    const rw_endpoint_settings *ep;
    const volatile int *abort;
    rw_http *plain; /* http:// */
    CURL *h;        /* https:// */
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
    if (strncmp(ep->url, "http://", 7) == 0)
        c->plain = rw_http_new(ep->url, ep->timeout_s, abort, err, n);
    else if (!(c->h = curl_easy_init()))
        snprintf(err, n, "%s", curl_easy_strerror(CURLE_FAILED_INIT));
    if (!c->plain && !c->h) {
        free(c);
        return NULL;
    }
    return c;
}

void rw_client_free(rw_client *c)
{
    if (!c)
        return;
    rw_http_free(c->plain);
    if (c->h)
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

/* ---- the request's headers ---- */

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

static void base64(const unsigned char *in, size_t n, gw_buf *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        buf_append(out, q, 4);
    }
}

/* The credentials' header line into out ("" when none). 0, or -1 with why in err. */
static int authorization(const rw_endpoint_settings *ep, gw_buf *out, char *err, size_t n)
{
    buf_clear(out);
    if (ep->bearer_file) {
        char *token = read_secret(ep->bearer_file, err, n);
        if (!token)
            return -1;
        buf_puts(out, "Authorization: Bearer ");
        buf_puts(out, token);
        memset(token, 0, strlen(token));
        free(token);
    } else if (ep->username) {
        char *password = ep->password_file ? read_secret(ep->password_file, err, n) : NULL;
        if (ep->password_file && !password)
            return -1;
        gw_buf plain;
        buf_init(&plain);
        buf_puts(&plain, ep->username);
        buf_putc(&plain, ':');
        buf_puts(&plain, password ? password : ep->password ? ep->password : "");
        buf_puts(out, "Authorization: Basic ");
        if (plain.data)
            base64((const unsigned char *)plain.data, plain.len, out);
        if (plain.data)
            memset(plain.data, 0, plain.len);
        buf_release(&plain);
        if (password) {
            memset(password, 0, strlen(password));
            free(password);
        }
    }
    if (out->oom) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    return 0;
}

/* Every header line of a request of version: the protocol's, the endpoint's, the credentials. */
static int header_lines(const rw_endpoint_settings *ep, int version, const gw_buf *auth, const char **lines)
{
    int k = 0;
    lines[k++] = "Content-Encoding: snappy";
    lines[k++] = version == 2 ? "Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request"
                              : "Content-Type: application/x-protobuf";
    lines[k++] = version == 2 ? "X-Prometheus-Remote-Write-Version: 2.0.0" : "X-Prometheus-Remote-Write-Version: 0.1.0";
    lines[k++] = "User-Agent: gpuwatch-remote-write";
    for (int i = 0; i < ep->nheaders; i++)
        lines[k++] = ep->headers[i];
    if (auth->len)
        lines[k++] = auth->data;
    return k;
}

/* ---- https:// with libcurl ---- */

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

static int post_curl(rw_client *c, const char **lines, int nlines, const void *body, size_t len, rw_response *r)
{
    const rw_endpoint_settings *ep = c->ep;
    struct curl_slist *hdr = curl_slist_append(NULL, "Expect:"), *next;
    for (int i = 0; hdr && i < nlines; i++) {
        if (!(next = curl_slist_append(hdr, lines[i]))) {
            curl_slist_free_all(hdr);
            hdr = NULL;
        }
        hdr = next;
    }
    if (!hdr) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    CURL *h = c->h;
    curl_easy_setopt(h, CURLOPT_URL, ep->url);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(ep->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(ep->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
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
    gw_clean_text(r->body);
    if (rc != CURLE_OK || status == 0) {
        snprintf(r->error, sizeof r->error, "%s", rc != CURLE_OK ? curl_easy_strerror(rc) : "no HTTP status");
        return -1;
    }
    r->status = status;
    return 0;
}

static int post_plain(rw_client *c, const char **lines, int nlines, const void *body, size_t len, rw_response *r)
{
    rw_http_answer a;
    int rc = rw_http_post(c->plain, lines, nlines, body, len, &a);
    r->status = a.status;
    r->written = a.written;
    r->written_headers = a.written_headers;
    r->retry_after_s = a.retry_after[0] ? rw_parse_retry_after(a.retry_after, (double)gw_now_us() / 1e6) : -1;
    snprintf(r->body, sizeof r->body, "%s", a.body);
    snprintf(r->error, sizeof r->error, "%s", a.error);
    return rc;
}

int rw_client_post(rw_client *c, const void *body, size_t len, int version, rw_response *r)
{
    memset(r, 0, sizeof *r);
    r->retry_after_s = -1;
    r->written = -1;
    gw_buf auth;
    buf_init(&auth);
    const char *lines[MAX_LINES];
    int rc = -1;
    if (authorization(c->ep, &auth, r->error, sizeof r->error) == 0) {
        int n = header_lines(c->ep, version, &auth, lines);
        rc = c->plain ? post_plain(c, lines, n, body, len, r) : post_curl(c, lines, n, body, len, r);
    }
    if (auth.data)
        memset(auth.data, 0, auth.len);
    buf_release(&auth);
    return rc;
}
