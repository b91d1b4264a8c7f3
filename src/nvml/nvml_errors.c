/* nvml_errors.c - what a failed NVML call means for a metric, and the per-(function, error) counters. */
#include <string.h>
#include "nvml_priv.h"

const char *nv_return_name(nvmlReturn_t rc)
{
    static const char *const names[] = {
        [NVML_SUCCESS] = "NVML_SUCCESS",
        [NVML_ERROR_UNINITIALIZED] = "NVML_ERROR_UNINITIALIZED",
        [NVML_ERROR_INVALID_ARGUMENT] = "NVML_ERROR_INVALID_ARGUMENT",
        [NVML_ERROR_NOT_SUPPORTED] = "NVML_ERROR_NOT_SUPPORTED",
        [NVML_ERROR_NO_PERMISSION] = "NVML_ERROR_NO_PERMISSION",
        [NVML_ERROR_ALREADY_INITIALIZED] = "NVML_ERROR_ALREADY_INITIALIZED",
        [NVML_ERROR_NOT_FOUND] = "NVML_ERROR_NOT_FOUND",
        [NVML_ERROR_INSUFFICIENT_SIZE] = "NVML_ERROR_INSUFFICIENT_SIZE",
        [NVML_ERROR_INSUFFICIENT_POWER] = "NVML_ERROR_INSUFFICIENT_POWER",
        [NVML_ERROR_DRIVER_NOT_LOADED] = "NVML_ERROR_DRIVER_NOT_LOADED",
        [NVML_ERROR_TIMEOUT] = "NVML_ERROR_TIMEOUT",
        [NVML_ERROR_IRQ_ISSUE] = "NVML_ERROR_IRQ_ISSUE",
        [NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML_ERROR_LIBRARY_NOT_FOUND",
        [NVML_ERROR_FUNCTION_NOT_FOUND] = "NVML_ERROR_FUNCTION_NOT_FOUND",
        [NVML_ERROR_CORRUPTED_INFOROM] = "NVML_ERROR_CORRUPTED_INFOROM",
        [NVML_ERROR_GPU_IS_LOST] = "NVML_ERROR_GPU_IS_LOST",
        [NVML_ERROR_RESET_REQUIRED] = "NVML_ERROR_RESET_REQUIRED",
        [NVML_ERROR_OPERATING_SYSTEM] = "NVML_ERROR_OPERATING_SYSTEM",
        [NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        [NVML_ERROR_IN_USE] = "NVML_ERROR_IN_USE",
        [NVML_ERROR_MEMORY] = "NVML_ERROR_MEMORY",
        [NVML_ERROR_NO_DATA] = "NVML_ERROR_NO_DATA",
        [NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] = "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
        [NVML_ERROR_INSUFFICIENT_RESOURCES] = "NVML_ERROR_INSUFFICIENT_RESOURCES",
        [NVML_ERROR_FREQ_NOT_SUPPORTED] = "NVML_ERROR_FREQ_NOT_SUPPORTED",
        [NVML_ERROR_ARGUMENT_VERSION_MISMATCH] = "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
        [NVML_ERROR_DEPRECATED] = "NVML_ERROR_DEPRECATED",
        [NVML_ERROR_NOT_READY] = "NVML_ERROR_NOT_READY",
        [NVML_ERROR_GPU_NOT_FOUND] = "NVML_ERROR_GPU_NOT_FOUND",
        [NVML_ERROR_INVALID_STATE] = "NVML_ERROR_INVALID_STATE",
        [NVML_ERROR_RESET_TYPE_NOT_SUPPORTED] = "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED",
    };
    if ((unsigned)rc < sizeof names / sizeof names[0] && names[rc])
        return names[rc];
    return "NVML_ERROR_UNKNOWN";
}

void nv_count_error(backend *b, nv_sym sym, nvmlReturn_t rc)
{
    pthread_mutex_lock(&b->err_lock);
    int i = 0;
    while (i < b->n_errs && !(b->errs[i].sym == sym && b->errs[i].code == rc))
        i++;
    if (i == b->n_errs && i < NV_MAX_ERR_KINDS) {
        b->errs[i] = (nv_err_kind){.sym = sym, .code = rc};
        b->n_errs++;
    }
    if (i < b->n_errs)
        b->errs[i].count++;
    pthread_mutex_unlock(&b->err_lock);
}

int nv_error_counts(backend *b, backend_error_count *out, int max)
{
    pthread_mutex_lock(&b->err_lock);
    int n = 0;
    for (; n < b->n_errs && n < max; n++) {
        const char *fn = b->sym_name[b->errs[n].sym];
        out[n] = (backend_error_count){fn ? fn : "?", nv_return_name(b->errs[n].code), b->errs[n].count};
    }
    pthread_mutex_unlock(&b->err_lock);
    return n;
}

int nv_check(nv_rd *r, nv_sym sym, nvmlReturn_t rc, const metric_id *ids, int n)
{
    if (rc == NVML_SUCCESS)
        return 1;
    /* NOT_SUPPORTED and DEPRECATED (a 590+ driver on applications clocks, display and power
     * management modes) are normal answers, not errors worth a counter */
    if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_DEPRECATED)
        nv_count_error(r->b, sym, rc);
    if (rc == NVML_ERROR_GPU_IS_LOST) {
        r->g->lost = 1;
    } else if (nv_driver_gone(rc)) {
        r->g->driver_gone = 1;
    } else if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_DEPRECATED) {
        for (int i = 0; i < n; i++)
            mset_add(&r->g->unsup, ids[i]);
    }
    return 0;
}
