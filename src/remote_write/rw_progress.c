/* rw_progress.c - an endpoint's acknowledged progress on disk (see rw_progress.h). */
#include "rw_progress.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"

#define HEADER "gpuwatch remote-write progress 1\n"

void rw_progress_path(const char *db, const char *name, char *out, size_t n)
{
    const char *slash = strrchr(db, '/');
    if (slash)
        snprintf(out, n, "%.*s/remote-write-%s.progress", (int)(slash - db), db, name);
    else
        snprintf(out, n, "remote-write-%s.progress", name);
}

int rw_progress_load(const char *path, const char *url, rw_progress *p, char *err, size_t n)
{
    memset(p, 0, sizeof *p);
    char why[128];
    int fd = gw_open_file(path, O_RDONLY, 0, GW_OPEN_NOFOLLOW | GW_OPEN_OWNED, why, sizeof why);
    if (fd < 0 && errno == ENOENT)
        return 0;
    char *text = fd >= 0 ? gw_read_fd(fd, 64u << 10, NULL, why, sizeof why) : NULL;
    if (!text) {
        snprintf(err, n, "%s: %s", path, why);
        return -1;
    }
    int rc = 0;
    size_t hl = strlen(HEADER);
    char *line = text;
    if (strncmp(text, HEADER, hl) == 0) {
        line = text + hl;
        char *eol = strchr(line, '\n');
        if (eol && strncmp(line, "url ", 4) == 0 && (size_t)(eol - line - 4) == strlen(url) &&
            strncmp(line + 4, url, strlen(url)) == 0) {
            rc = 1;
            for (line = eol + 1; *line; line = eol ? eol + 1 : line + strlen(line)) {
                eol = strchr(line, '\n');
                int gpu;
                int64_t t;
                if (sscanf(line, "gpu %d %" SCNd64, &gpu, &t) == 2 && gpu >= 0 && gpu < RW_PROGRESS_GPUS && t > 0)
                    p->acked_us[gpu] = t;
                if (!eol)
                    break;
            }
        }
    } else {
        snprintf(err, n, "%s: not a progress file", path);
        rc = -1;
    }
    free(text);
    return rc;
}

int rw_progress_save(const char *path, const char *url, const rw_progress *p, char *err, size_t n)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL underneath: never through a link */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, n, "%s: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return -1;
    }
    fchmod(fd, 0600);
    fprintf(f, HEADER "url %s\n", url);
    for (int g = 0; g < RW_PROGRESS_GPUS; g++)
        if (p->acked_us[g])
            fprintf(f, "gpu %d %" PRId64 "\n", g, p->acked_us[g]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
