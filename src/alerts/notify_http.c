/* notify_http.c - one JSON POST with libcurl: headers, basic auth, TLS files, timeout. */
#include "notify_impl.h"
#include "lazy_curl.h"
#include <stdio.h>
#include <string.h>

/* The response body is not needed: keep at most a short excerpt for error messages. */
typedef struct {
    char text[200];
    size_t len;
} excerpt;

static size_t keep_excerpt(char *data, size_t size, size_t n, void *arg)
{
    excerpt *e = arg;
    size_t total = size * n, room = sizeof e->text - 1 - e->len;
    size_t take = total < room ? total : room;
    memcpy(e->text + e->len, data, take);
    e->len += take;
    e->text[e->len] = 0;
    return total;
}

int notify_http_post(const receiver_config *c, const char *url, const char *body, char *err, size_t errlen)
{
    CURL *h = curl_easy_init();
    if (!h) {
        snprintf(err, errlen, "curl_easy_init failed");
        return -1;
    }
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    for (int i = 0; i < c->nheaders; i++)
        hdr = curl_slist_append(hdr, c->headers[i]);
    excerpt resp = {"", 0};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gpuwatch-alerts");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_excerpt);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (c->basic_user) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, c->basic_user);
        curl_easy_setopt(h, CURLOPT_PASSWORD, c->basic_password ? c->basic_password : "");
    }
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->cert_file)
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
    if (c->key_file)
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
    if (c->insecure_skip_verify) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "POST %s: %s", url, curl_easy_strerror(rc));
        return -1;
    }
    if (status < 200 || status > 299) {
        for (char *p = resp.text; *p; p++)
            if (*p == '\n' || *p == '"')
                *p = ' ';
        snprintf(err, errlen, "POST %s: HTTP %ld %s", url, status, resp.text);
        return -1;
    }
    return 0;
}
