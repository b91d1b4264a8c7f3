/* remote.c - placeholder; replaced below. */
#include "top_model.h"
#include "util.h"
int top_source_remote(top_source *src, top_model *m, const top_remote_opts *o, char *err, size_t errlen)
{
    (void)src; (void)m; (void)o;
    gw_strlcpy(err, "remote mode not built yet", errlen);
    return 1;
}
