/* remote_http.c - libcurl and cJSON plumbing for top --host (see remote_http.h). */
#include "remote_http.h"
#include "util.h"
#include "lazy_curl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t on_data(char *p, size_t size, size_t n, void *vctx)
{
    remote_http *c = vctx;
    size_t add = size * n;
    if (c->len + add > (64u << 20))
        return 0; /* refuse absurd bodies */
    char *nb = realloc(c->body, c->len + add + 1);
    if (!nb)
        return 0;
    memcpy(nb + c->len, p, add);
    c->body = nb;
    c->len += add;
    c->body[c->len] = 0;
    return add;
}

static int read_password(const char *file, char *out, size_t n, char *err, size_t errlen)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "--password-file %s: cannot read it", file);
        return -1;
    }
    if (!fgets(out, (int)n, f))
        out[0] = 0;
    fclose(f);
    out[strcspn(out, "\r\n")] = 0;
    return 0;
}

int remote_http_open(remote_http *h, const top_remote_opts *o, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *c = curl_easy_init();
    if (!c) {
        curl_global_cleanup();
        gw_strlcpy(err, "cannot start libcurl", errlen);
        return -1;
    }
    h->curl = c;
    snprintf(h->base, sizeof h->base, "%s://%s", o->tls ? "https" : "http", o->host);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuwatch-top");
    if (o->cacert)
        curl_easy_setopt(c, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (o->user) {
        if (read_password(o->password_file, h->password, sizeof h->password, err, errlen) != 0)
            return -1;
        curl_easy_setopt(c, CURLOPT_USERNAME, o->user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, h->password);
    }
    return 0;
}

void remote_http_close(remote_http *h)
{
    if (h->curl) {
        curl_easy_cleanup(h->curl);
        curl_global_cleanup();
    }
    free(h->body);
    memset(h, 0, sizeof *h);
}

/* GETs path and parses it; NULL with err filled on failure. */
cJSON *remote_get_json(remote_http *c, const char *path, char *err, size_t errlen)
{
    char url[256];
    snprintf(url, sizeof url, "%s%s", c->base, path);
    c->len = 0;
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    CURLcode rc = curl_easy_perform(c->curl);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "agent %s: %s", c->base, curl_easy_strerror(rc));
        return NULL;
    }
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        snprintf(err, errlen, "agent %s%s: HTTP %ld%s", c->base, path, status,
                 status == 401 ? " (wrong or missing --user/--password-file)" : "");
        return NULL;
    }
    cJSON *root = c->body ? cJSON_Parse(c->body) : NULL;
    if (!root)
        snprintf(err, errlen, "agent %s%s: the answer is not JSON", c->base, path);
    return root;
}

const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int jnum(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 1;
    }
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? 1 : 0;
        return 1;
    }
    return 0;
}
