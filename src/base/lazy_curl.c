/* lazy_curl.c - loads libcurl on first use (see lazy_curl.h). */
#include "lazy_curl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "util.h"

static CURLcode no_global_init(long flags)
{
    (void)flags;
    return CURLE_FAILED_INIT;
}
static void no_global_cleanup(void)
{
}
static CURL *no_easy_init(void)
{
    return NULL;
}
static CURLcode no_easy_setopt(CURL *h, CURLoption o, ...)
{
    (void)h;
    (void)o;
    return CURLE_FAILED_INIT;
}
static CURLcode no_easy_perform(CURL *h)
{
    (void)h;
    return CURLE_FAILED_INIT;
}
static CURLcode no_easy_getinfo(CURL *h, CURLINFO i, ...)
{
    (void)h;
    (void)i;
    return CURLE_FAILED_INIT;
}
static void no_easy_cleanup(CURL *h)
{
    (void)h;
}
static const char *no_easy_strerror(CURLcode c)
{
    (void)c;
    return "libcurl (libcurl.so.4) could not be loaded";
}
static struct curl_slist *no_slist_append(struct curl_slist *l, const char *s)
{
    (void)s;
    return l;
}
static void no_slist_free_all(struct curl_slist *l)
{
    (void)l;
}

static gw_curl_api api = {no_global_init,  no_global_cleanup, no_easy_init,     no_easy_setopt,  no_easy_perform,
                          no_easy_getinfo, no_easy_cleanup,   no_easy_strerror, no_slist_append, no_slist_free_all};
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Resolves one symbol into a function pointer slot; returns 0 when missing. */
static int resolve(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(slot, &p, size); /* POSIX: dlsym's result converts to a function pointer */
    return 1;
}

static void load(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        gw_log(GW_LOG_WARN, "libcurl not available", "error=\"%s\"", dlerror());
        return;
    }
    gw_curl_api a;
#define R(field, name) resolve(lib, name, &a.field, sizeof a.field)
    int ok = R(global_init, "curl_global_init") & R(global_cleanup, "curl_global_cleanup") &
             R(easy_init, "curl_easy_init") & R(easy_setopt, "curl_easy_setopt") &
             R(easy_perform, "curl_easy_perform") & R(easy_getinfo, "curl_easy_getinfo") &
             R(easy_cleanup, "curl_easy_cleanup") & R(easy_strerror, "curl_easy_strerror") &
             R(slist_append, "curl_slist_append") & R(slist_free_all, "curl_slist_free_all");
#undef R
    if (!ok) {
        gw_log(GW_LOG_WARN, "libcurl.so.4 lacks a needed function", NULL);
        dlclose(lib);
        return;
    }
    api = a; /* the library stays loaded for the life of the process */
}

const gw_curl_api *gw_curl(void)
{
    pthread_once(&once, load);
    return &api;
}
