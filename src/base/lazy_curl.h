/* lazy_curl.h - libcurl, loaded with dlopen the first time it is used.
 * libcurl brings some 25 libraries (TLS, Kerberos, LDAP...); only the alert receivers and
 * `top --host` need it, so one-shot commands do not pay for loading them. Include this
 * instead of <curl/curl.h>: the usual curl_* calls below then go through the loaded library.
 * If libcurl cannot be loaded, curl_global_init fails and curl_easy_init returns NULL. */
#ifndef GPUWATCH_LAZY_CURL_H
#define GPUWATCH_LAZY_CURL_H

#include <curl/curl.h>

typedef struct gw_curl_api {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *h);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
} gw_curl_api;

/* The loaded API (loaded once, thread-safe); never NULL. */
const gw_curl_api *gw_curl(void);

#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init(f) (gw_curl()->global_init(f))
#define curl_global_cleanup() (gw_curl()->global_cleanup())
#define curl_easy_init() (gw_curl()->easy_init())
#define curl_easy_setopt(h, o, ...) (gw_curl()->easy_setopt((h), (o), __VA_ARGS__))
#define curl_easy_perform(h) (gw_curl()->easy_perform(h))
#define curl_easy_getinfo(h, i, ...) (gw_curl()->easy_getinfo((h), (i), __VA_ARGS__))
#define curl_easy_cleanup(h) (gw_curl()->easy_cleanup(h))
#define curl_easy_strerror(c) (gw_curl()->easy_strerror(c))
#define curl_slist_append(l, s) (gw_curl()->slist_append((l), (s)))
#define curl_slist_free_all(l) (gw_curl()->slist_free_all(l))

#endif
