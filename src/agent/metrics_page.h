/* metrics_page.h - /metrics: the GPU part of the page and the versioned plugins' series are built
 * once per sampling round, config or plugin version, and shared by every scrape (refcounted); the
 * tail (plugins without a version, sample ages, up, scrape duration) is written per scrape. */
#ifndef GPUWATCH_METRICS_PAGE_H
#define GPUWATCH_METRICS_PAGE_H

#include <stddef.h>

struct agent;
struct guard_stats;
typedef struct page_cache page_cache;

page_cache *page_cache_new(void);
void page_cache_free(page_cache *c);

typedef struct page_ref page_ref;
/* The current page for a scrape: two parts (shared part, own tail) and a reference to drop. */
typedef struct metrics_page {
    const char *gpus;
    size_t gpus_len;
    char *tail; /* malloc'ed */
    size_t tail_len;
    page_ref *ref;
    /* After metrics_page_gzip: the same page as one gzip stream, malloc'ed: a copy of the shared
     * part deflated once per page_ref, then the tail in stored blocks and the gzip trailer. */
    unsigned char *gz;
    size_t gz_len;
} metrics_page;

/* http: the HTTP server's connection figures for the tail (NULL: none). */
int metrics_page_get(struct agent *a, const struct guard_stats *http, metrics_page *out);
/* Fills gz and gz_len; the shared part is compressed by the first caller for its page_ref. 0, or -1
 * when out of memory (the identity page is still usable). */
int metrics_page_gzip(metrics_page *p);
void metrics_page_release(metrics_page *p); /* drops the reference, frees the tail and gz */

#endif
