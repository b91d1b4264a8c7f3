/* scenario_load.c - reading a scenario file, the built-in default scenario, and the
 * identities (uuid, serial, PCI bus) generated for GPUs that do not set them. */
#include "scenario.h"
#include "scenario_internal.h"
#include "files.h"
#include "gen.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENARIO_MAX_BYTES (16u << 20)

/* PCI buses of the eight GPUs of an HGX H100 board, used for the first eight indices. */
static const unsigned hgx_buses[8] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

/* How finely NVML reports a metric, as steps per catalog unit: mW for watts, bytes for MiB,
 * ns for us counters, integers otherwise; 0 (not rounded) for GPM ratios and compute_cap. */
static double metric_quantum(const metric_def *d)
{
    if ((d->flags & MF_GPM) || d->id == M_COMPUTE_CAP)
        return 0;
    if (!d->unit)
        return 1;
    if (strcmp(d->unit, "W") == 0 || strcmp(d->unit, "us") == 0)
        return 1000;
    if (strcmp(d->unit, "MiB") == 0)
        return 1048576;
    return 1;
}

void scenario_finish(scenario *sc)
{
    for (int m = 0; m < M_COUNT; m++)
        sc->quantum[m] = metric_quantum(&metric_catalog[m]);
    for (int i = 0; i < sc->ngpus; i++) {
        sim_gpu *g = &sc->gpus[i];
        const sim_gpu_spec *s = g->spec;
        uint64_t h1 = noise_key(sc->seed, 0x55494400u, (uint32_t)i), h2 = noise_key(sc->seed, 0x55494401u, (uint32_t)i);
        if (s->uuid[0])
            snprintf(g->uuid, sizeof g->uuid, "%s", s->uuid);
        else
            snprintf(g->uuid, sizeof g->uuid, "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(h1 >> 32),
                     (unsigned)(h1 >> 16) & 0xffff, 0x4000 | ((unsigned)h1 & 0x0fff),
                     0x8000 | ((unsigned)(h2 >> 48) & 0x3fff), (unsigned long long)(h2 & 0xffffffffffffULL));
        if (s->serial[0])
            snprintf(g->serial, sizeof g->serial, "%s", s->serial);
        else
            snprintf(g->serial, sizeof g->serial, "%013llu",
                     1650000000000ULL + (unsigned long long)(h1 % 1000000000ULL));
        g->pci_bus = i < 8 ? hgx_buses[i] : 0xe0u + (unsigned)(i - 8);
        unsigned dom = 0, bus = 0, dev = 0;
        if (s->pci_bus_id[0] && sscanf(s->pci_bus_id, "%x:%x:%x", &dom, &bus, &dev) == 3)
            g->pci_bus = bus;
        if (s->pci_bus_id[0])
            snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", s->pci_bus_id);
        else
            snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "00000000:%02X:00.0", g->pci_bus);
        g->st.k = -1;
    }
}

scenario *scenario_load(const char *path, char *err, size_t errlen)
{
    size_t len;
    char why[128];
    char *text = gw_read_file(path, SCENARIO_MAX_BYTES, &len, why, sizeof why);
    if (!text) {
        snprintf(err, errlen, "%s: cannot open scenario: %s", path, why);
        return NULL;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    scenario *sc = scenario_parse(path, dir, text, len, err, errlen);
    free(text);
    return sc;
}

scenario *scenario_default(void)
{
    static const char text[] = "gpus:\n  - preset: h100-sxm\n";
    char err[256];
    return scenario_parse("<built-in>", NULL, text, sizeof text - 1, err, sizeof err);
}
