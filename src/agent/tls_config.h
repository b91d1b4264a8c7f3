/* tls_config.h - the TLS settings of Prometheus' web-config (tls_server_config: min_version,
 * max_version, cipher_suites, curve_preferences, prefer_server_cipher_suites), with Go's names,
 * and the GnuTLS priority string libmicrohttpd is given for them. The default is TLS 1.2 and 1.3
 * with forward-secret AEAD suites only. */
#ifndef GPUWATCH_TLS_CONFIG_H
#define GPUWATCH_TLS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum { TLS_V10 = 0x0301, TLS_V11 = 0x0302, TLS_V12 = 0x0303, TLS_V13 = 0x0304 };

typedef struct tls_settings {
    int min_version, max_version; /* TLS_V10 .. TLS_V13 */
    uint32_t ciphers;             /* bits of the cipher suite table; 0: the default (AEAD, ECDHE) */
    uint32_t curves;              /* bits of the curve table; 0: X25519, P-256, P-384 */
    int prefer_server;            /* the server's order of suites (Prometheus' default) */
} tls_settings;

void tls_settings_default(tls_settings *t);
/* "TLS10" .. "TLS13" -> TLS_V*, or -1. */
int tls_version_parse(const char *name);
/* A cipher suite by its Go name (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 ...): its bit index, -1
 * when unknown, -2 when known but not offered (RC4, 3DES: broken). */
int tls_cipher_parse(const char *name);
/* A curve by its Go name (CurveP256, CurveP384, CurveP521, X25519): its bit index, or -1. */
int tls_curve_parse(const char *name);
/* The GnuTLS priority string into out[n]. Returns 0, or -1 when n is too small. */
int tls_priority(const tls_settings *t, char *out, size_t n);

#endif
