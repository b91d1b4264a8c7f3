/* metrics_page.h - /metrics: the GPU part of the page is built once per new sampling round or
 * config and shared by every scrape (refcounted); only the small health part is built per scrape. */
#ifndef GPUWATCH_METRICS_PAGE_H
#define GPUWATCH_METRICS_PAGE_H

#include <stddef.h>

struct agent;
typedef struct page_cache page_cache;

page_cache *page_cache_new(void);
void page_cache_free(page_cache *c);

typedef struct page_ref page_ref;
/* The current page for a scrape: two parts (shared GPU part, own tail) and a reference to drop. */
typedef struct metrics_page {
    const char *gpus;
    size_t gpus_len;
    char *tail;                /* malloc'ed */
    size_t tail_len;
    page_ref *ref;
} metrics_page;

int metrics_page_get(struct agent *a, metrics_page *out);
void metrics_page_release(metrics_page *p);   /* drops the reference and frees the tail */

#endif
