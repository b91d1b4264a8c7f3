/* replay.c - a main for the harnesses of fuzz/ without libFuzzer, so that gcc builds them: each
 * file named, or each file of each folder named (in name order), is given once to the harness's
 * LLVMFuzzerTestOneInput in a buffer of exactly its size, as libFuzzer does with a corpus. `make
 * test` replays every seed and regression input through it under ASan and UBSan (docs/reliability.md,
 * "Fuzzing"); what a sanitizer finds aborts the run. The harnesses' scratch files go to a folder of
 * the run's own (TMPDIR), removed at the end. Exit status 0 when every input ran, 1 when an input
 * cannot be read or none was given. */
#include "common.h"
#include "files.h"
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPLAY_MAX_INPUT (16u << 20)

/* Gives one file to the harness. 0, or -1 when it cannot be read. */
static int replay_file(const char *path)
{
    char why[256];
    size_t len = 0;
    char *text = gw_read_file(path, REPLAY_MAX_INPUT, &len, why, sizeof why);
    if (!text) {
        fprintf(stderr, "replay: %s: %s\n", path, why);
        return -1;
    }
    /* exactly the input's size: a read past its end is a sanitizer report, as under libFuzzer */
    uint8_t *data = malloc(len ? len : 1);
    if (!data) {
        free(text);
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return -1;
    }
    memcpy(data, text, len);
    free(text);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Gives every regular file of a folder to the harness. The count given, or -1 on a file that
 * cannot be read. */
static int replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        perror(dir);
        return -1;
    }
    int given = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) == 0)
                given++;
            else
                bad = 1;
        }
        free(names[i]);
    }
    free(names);
    return bad ? -1 : given;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    char scratch[4096];
    snprintf(scratch, sizeof scratch, "%s/gw-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror(scratch);
        return 1;
    }
    setenv("TMPDIR", scratch, 1);
    LLVMFuzzerInitialize(&argc, &argv);
    int total = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        int given = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (given < 0)
            rc = 1;
        else
            total += given;
    }
    printf("replay: %d inputs\n", total);
    if (total == 0) {
        fprintf(stderr, "replay: no input in %s\n", argc > 1 ? argv[1] : "(no folder given)");
        rc = 1;
    }
    nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
