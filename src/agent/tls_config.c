/* tls_config.c - Go's TLS names to a GnuTLS priority string (see tls_config.h). */
#include "tls_config.h"
#include <stdio.h>
#include <string.h>

/* A TLS 1.2 cipher suite as GnuTLS spells its parts. GnuTLS takes key exchanges, ciphers and MACs
 * as three sets, so the suites offered are the valid combinations of the listed suites' parts. */
typedef struct {
    const char *go, *kx, *cipher, *mac;
} suite;

static const suite suites[] = {
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA", "AES-128-CBC", "SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC", "SHA256"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
};
#define NSUITES (sizeof suites / sizeof suites[0])
#define DEFAULT_SUITES 0x3fu /* the first six: ECDHE with AES-GCM or ChaCha20-Poly1305 */

/* Suites Go knows and gpuwatch refuses to offer. */
static const char *const broken[] = {
    "TLS_RSA_WITH_RC4_128_SHA",       "TLS_RSA_WITH_3DES_EDE_CBC_SHA",       "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
};

static const struct {
    const char *go, *group;
} curves[] = {
    {"X25519", "GROUP-X25519"},
    {"CurveP256", "GROUP-SECP256R1"},
    {"CurveP384", "GROUP-SECP384R1"},
    {"CurveP521", "GROUP-SECP521R1"},
};
#define NCURVES (sizeof curves / sizeof curves[0])
#define DEFAULT_CURVES 0x7u /* X25519, P-256, P-384 */

static const struct {
    const char *name, *gnutls;
    int v;
} versions[] = {
    {"TLS10", "VERS-TLS1.0", TLS_V10},
    {"TLS11", "VERS-TLS1.1", TLS_V11},
    {"TLS12", "VERS-TLS1.2", TLS_V12},
    {"TLS13", "VERS-TLS1.3", TLS_V13},
};

void tls_settings_default(tls_settings *t)
{
    memset(t, 0, sizeof *t);
    t->min_version = TLS_V12;
    t->max_version = TLS_V13;
    t->prefer_server = 1;
}

int tls_version_parse(const char *name)
{
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (!strcmp(name, versions[i].name))
            return versions[i].v;
    return -1;
}

int tls_cipher_parse(const char *name)
{
    for (size_t i = 0; i < NSUITES; i++)
        if (!strcmp(name, suites[i].go))
            return (int)i;
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
        if (!strcmp(name, broken[i]))
            return -2;
    return -1;
}

int tls_curve_parse(const char *name)
{
    for (size_t i = 0; i < NCURVES; i++)
        if (!strcmp(name, curves[i].go))
            return (int)i;
    return -1;
}

/* Appends ":+item" once (GnuTLS accepts repeats, the string stays readable without them). */
static void add(char *out, size_t n, size_t *len, const char *item)
{
    char tok[64];
    snprintf(tok, sizeof tok, ":+%s:", item);
    char probe[1024];
    snprintf(probe, sizeof probe, "%s:", out);
    if (strstr(probe, tok))
        return;
    int w = snprintf(out + *len, *len < n ? n - *len : 0, ":+%s", item);
    *len += w > 0 ? (size_t)w : 0;
}

int tls_priority(const tls_settings *t, char *out, size_t n)
{
    size_t len = 0;
    int w = snprintf(out, n, "NORMAL:-VERS-ALL:-CIPHER-ALL:-MAC-ALL:-KX-ALL:-GROUP-ALL");
    len = w > 0 ? (size_t)w : 0;
    for (size_t i = sizeof versions / sizeof versions[0]; i-- > 0;)
        if (versions[i].v >= t->min_version && versions[i].v <= t->max_version)
            add(out, n, &len, versions[i].gnutls);
    uint32_t cs = t->ciphers ? t->ciphers : DEFAULT_SUITES;
    if (t->max_version >= TLS_V13) /* TLS 1.3's suites are not configurable (as in Go) */
        cs |= DEFAULT_SUITES;
    for (size_t i = 0; i < NSUITES; i++)
        if (cs & (1u << i))
            add(out, n, &len, suites[i].cipher);
    for (size_t i = 0; i < NSUITES; i++)
        if (cs & (1u << i))
            add(out, n, &len, suites[i].mac);
    uint32_t kx = t->ciphers ? t->ciphers : DEFAULT_SUITES;
    for (size_t i = 0; i < NSUITES; i++)
        if (kx & (1u << i))
            add(out, n, &len, suites[i].kx);
    uint32_t gs = t->curves ? t->curves : DEFAULT_CURVES;
    for (size_t i = 0; i < NCURVES; i++)
        if (gs & (1u << i))
            add(out, n, &len, curves[i].group);
    if (t->prefer_server) {
        w = snprintf(out + len, len < n ? n - len : 0, ":%%SERVER_PRECEDENCE");
        len += w > 0 ? (size_t)w : 0;
    }
    return len < n ? 0 : -1;
}
