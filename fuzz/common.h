/* common.h - what the harnesses share: the input as a C string, the input written to a file, quiet logs. */
#ifndef GPUWATCH_FUZZ_COMMON_H
#define GPUWATCH_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd; an embedded NUL ends it early). NULL on no memory. */
char *fuzz_text(const uint8_t *data, size_t size);
/* This process's scratch folder: $TMPDIR/gw-fuzz-PID (or /tmp/...), made on first use. */
const char *fuzz_dir(void);
/* Writes data into the file name of the scratch folder and returns its path (static storage, until
 * the next call), or NULL. */
const char *fuzz_file(const char *name, const void *data, size_t size);
/* Logs only errors (a harness that logs every input runs slower than its parser). */
void fuzz_quiet(void);

/* Reads the input as a sequence of fields: fuzz_take_byte, and fuzz_take_str (up to a NUL or the end;
 * the returned text lives until the next call of fuzz_fields_free). */
typedef struct fuzz_fields {
    const uint8_t *p;
    size_t left;
    char *strs[32];
    int nstrs;
} fuzz_fields;
unsigned fuzz_take_byte(fuzz_fields *f);
const char *fuzz_take_str(fuzz_fields *f);
void fuzz_fields_free(fuzz_fields *f);

#endif
