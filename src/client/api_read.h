/* api_read.h - what the decoders of agent_api.h share: an answer parsed within its bounds, and the
 * validated reads of its values (numbers in range, times in the window, clean strings). Internal to
 * the client layer. */
#ifndef GPUWATCH_API_READ_H
#define GPUWATCH_API_READ_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include "agent_api.h"

/* The answer as a cJSON tree, refused (NULL, err filled) when it is over API_MAX_BODY bytes,
 * API_MAX_VALUES values or API_MAX_DEPTH levels, is not JSON, or is not an object. */
cJSON *api_parse(const char *body, size_t len, char *err, size_t n);

/* An answer's list: the array under key (under inner within key when inner is given) of the body
 * parsed as api_parse does. NULL with err filled ("not a list of WHAT (no "KEY" array)") and *root
 * NULL; else the caller frees *root with cJSON_Delete. */
const cJSON *api_list(const char *body, size_t len, const char *key, const char *inner, const char *what, cJSON **root,
                      char *err, size_t n);
/* Room for the items of arr, at most max of them (and at least one slot): calloc'ed, with *room the
 * number of items it holds; NULL with err filled when memory is short. */
void *api_items(const cJSON *arr, int max, size_t size, int *room, char *err, size_t n);

/* The context's clock (read now when it has none). */
uint64_t api_now(const api_context *ctx);
/* The GPU indexes the context accepts: [0, api_gpu_count(ctx)). */
int api_gpu_count(const api_context *ctx);

/* A number under key (a boolean reads as 0 or 1), finite and within [lo, hi]: 1 with *out set, else 0. */
int api_num(const cJSON *o, const char *key, double lo, double hi, double *out);
/* The same for a value that is itself a number. */
int api_num_value(const cJSON *v, double lo, double hi, double *out);
/* A whole number under key within [lo, hi]: 1 with *out set, else 0. */
int api_whole(const cJSON *o, const char *key, long lo, long hi, long *out);
/* 1 only when key holds true. */
int api_true(const cJSON *o, const char *key);
/* s copied into out (at most n-1 bytes, never cutting a character) and cleaned (gw_clean_text). */
void api_copy_text(const char *s, char *out, size_t n);
/* A string under key, copied as api_copy_text: 1, or 0 with out "" when key holds no string. */
int api_str(const cJSON *o, const char *key, char *out, size_t n);
/* The same for a value that is itself a string. */
int api_str_value(const cJSON *v, char *out, size_t n);
/* Unix seconds within the context's window as microseconds: 1 with *out_us set, else 0. */
int api_time_s(const api_context *ctx, double t_s, uint64_t *out_us);
/* An RFC 3339 time under key within the window: 1 with *out_us set, else 0. */
int api_rfc3339(const api_context *ctx, const cJSON *o, const char *key, uint64_t *out_us);

#endif
