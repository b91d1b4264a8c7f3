/* module_loader.c - loads a command module with dlopen and runs one of its commands.
 *
 * Where modules are looked for, first hit wins:
 *   $GPUWATCH_MODULE_DIR          (tests, unusual installs)
 *   <program dir>/modules         (the build tree: build/modules/agent.so)
 *   <program dir>/../lib/gpuwatch (an install under any prefix: /usr/bin + /usr/lib/gpuwatch)
 *   GW_MODULE_DIR                 (the configured install directory)
 * A module is never unloaded: the process ends with its command. */
#include "module_loader.h"
#include "module_api.h"
#include "sampler.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GW_MODULE_DIR
#define GW_MODULE_DIR "/usr/local/lib/gpuwatch"
#endif

void program_dir(char *out, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", out, n - 1);
    if (len <= 0) {
        snprintf(out, n, ".");
        return;
    }
    out[len] = 0;
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = 0;
}

/* Fills dirs[] with the candidate directories; returns how many. */
static int module_dirs(char dirs[][PATH_MAX], int max)
{
    int n = 0;
    char self[PATH_MAX];
    const char *env = getenv("GPUWATCH_MODULE_DIR");
    if (env && *env && n < max)
        snprintf(dirs[n++], PATH_MAX, "%s", env);
    program_dir(self, sizeof self);
    if (n < max)
        snprintf(dirs[n++], PATH_MAX, "%.*s/modules", PATH_MAX - 16, self);
    if (n < max)
        snprintf(dirs[n++], PATH_MAX, "%.*s/../lib/gpuwatch", PATH_MAX - 24, self);
    if (n < max)
        snprintf(dirs[n++], PATH_MAX, "%s", GW_MODULE_DIR);
    return n;
}

/* The entry of command in module, loaded; NULL after one clear line on stderr. */
static const gw_module_command *load_command(const char *module, const char *command)
{
    char dirs[4][PATH_MAX], path[PATH_MAX + 64];
    int ndirs = module_dirs(dirs, 4);
    void *h = NULL;
    char why[512] = "";
    for (int i = 0; i < ndirs; i++) {
        snprintf(path, sizeof path, "%.*s/%.32s.so", PATH_MAX - 1, dirs[i], module);
        if (access(path, F_OK) != 0)
            continue;
        /* The first file found is the module, even when it fails to load (no silent mix of
         * versions). RTLD_NOW: a symbol the program lacks is an error here, not a crash later. */
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(why, sizeof why, "%s", dlerror());
        break;
    }
    if (!h) {
        if (!why[0]) {
            int off = snprintf(why, sizeof why, "no %s.so in", module);
            for (int i = 0; i < ndirs && off < (int)sizeof why; i++)
                off += snprintf(why + off, sizeof why - (size_t)off, " %s", dirs[i]);
        }
        fprintf(stderr, "gpuwatch: '%s' needs the %s module, which could not be loaded: %s\n", command, module, why);
        return NULL;
    }
    const gw_module_command *cmds = (const gw_module_command *)dlsym(h, "gw_module_commands");
    for (int i = 0; cmds && cmds[i].name; i++)
        if (strcmp(cmds[i].name, command) == 0)
            return &cmds[i];
    fprintf(stderr, "gpuwatch: the %s module (%s) has no '%s' command: it does not match this gpuwatch\n", module, path,
            command);
    return NULL;
}

int module_run(const char *module, const char *command, int argc, char **argv)
{
    const gw_module_command *c = load_command(module, command);
    return c ? c->run(argc, argv) : GW_EXIT_BACKEND;
}

int module_options(const char *module, const char *command, const char *sub, gw_opt_visit *fn, void *ctx)
{
    const gw_module_command *c = load_command(module, command);
    if (!c)
        return -1;
    if (c->options)
        c->options(sub, fn, ctx);
    return 0;
}
