/* auth.c - basic auth: header parsing, bcrypt verification via crypt_r, and a cache (see auth.h). */
#include "auth.h"
#include <crypt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define CACHE_SLOTS 16
#define CACHE_TTL_US (60ull * 1000000ull)
#define MAX_CRED AUTH_MAX_CRED
/* A valid bcrypt salt (22 characters of its alphabet) for the dummy checks: an unknown user is
 * checked at the highest cost of the configured users, and a user whose hash costs less pays the
 * difference in dummy checks, so that every uncached check costs the same and the timing tells
 * neither which user names exist nor whose hash is cheaper. */
#define DUMMY_SALT "gpuwatchgpuwatchgpuwau"
#define BCRYPT_MIN_COST 4
#define BCRYPT_MAX_COST 31

typedef struct {
    char user[MAX_CRED];
    char pass[MAX_CRED];
    uint64_t expires_us;
} cache_slot;

struct auth {
    pthread_mutex_t lock;
    cfg_user *users;
    int *costs; /* each user's bcrypt cost */
    int nusers;
    int max_cost; /* the highest of them: what every uncached check costs */
    cache_slot cache[CACHE_SLOTS];
    int next_slot;
};

auth *auth_new(void)
{
    auth *a = calloc(1, sizeof *a);
    if (a)
        pthread_mutex_init(&a->lock, NULL);
    return a;
}

static void clear_users(auth *a)
{
    for (int i = 0; i < a->nusers; i++) {
        free(a->users[i].name);
        free(a->users[i].hash);
    }
    free(a->users);
    free(a->costs);
    a->users = NULL;
    a->costs = NULL;
    a->nusers = 0;
    explicit_bzero(a->cache, sizeof a->cache);
}

int auth_hash_cost(const char *hash)
{
    if (!hash || hash[0] != '$' || hash[1] != '2' || !hash[2] || hash[3] != '$')
        return -1;
    if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9' || hash[6] != '$')
        return -1;
    int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
    return cost >= BCRYPT_MIN_COST && cost <= BCRYPT_MAX_COST ? cost : -1;
}

void auth_free(auth *a)
{
    if (!a)
        return;
    clear_users(a);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

int auth_set_users(auth *a, const cfg_user *users, int n)
{
    cfg_user *copy = calloc((size_t)(n ? n : 1), sizeof *copy);
    int *costs = calloc((size_t)(n ? n : 1), sizeof *costs);
    if (!copy || !costs) {
        free(copy);
        free(costs);
        return -1;
    }
    int max_cost = 10;
    for (int i = 0; i < n; i++) {
        copy[i].name = strdup(users[i].name);
        copy[i].hash = strdup(users[i].hash);
        costs[i] = auth_hash_cost(users[i].hash);
        if (i == 0 || costs[i] > max_cost)
            max_cost = costs[i];
    }
    if (max_cost < BCRYPT_MIN_COST)
        max_cost = 10;
    pthread_mutex_lock(&a->lock);
    clear_users(a);
    a->users = copy;
    a->costs = costs;
    a->nusers = n;
    a->max_cost = max_cost;
    pthread_mutex_unlock(&a->lock);
    return 0;
}

int auth_enabled(auth *a)
{
    pthread_mutex_lock(&a->lock);
    int on = a->nusers > 0;
    pthread_mutex_unlock(&a->lock);
    return on;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Standard base64 with padding; returns decoded length or -1. */
static int b64_decode(const char *in, size_t inlen, char *out, size_t outlen)
{
    if (inlen % 4 != 0)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < inlen; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            char ch = in[i + k];
            if (ch == '=' && i + 4 == inlen && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad || (v[k] = b64_value(ch)) < 0) {
                return -1;
            }
        }
        unsigned triple = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
        for (int k = 0; k < 3 - pad; k++) {
            if (o + 1 >= outlen)
                return -1;
            out[o++] = (char)((triple >> (16 - 8 * k)) & 0xff);
        }
    }
    out[o] = 0;
    return (int)o;
}

int auth_parse_basic(const char *header, char *user, size_t ulen, char *pass, size_t plen)
{
    if (!header || strncasecmp(header, "Basic ", 6) != 0)
        return -1;
    const char *p = header + 6;
    while (*p == ' ')
        p++;
    size_t len = strlen(p);
    while (len && p[len - 1] == ' ')
        len--;
    char dec[2 * MAX_CRED + 2];
    int n = b64_decode(p, len, dec, sizeof dec);
    if (n <= 0 || memchr(dec, 0, (size_t)n))
        return -1;
    char *colon = strchr(dec, ':');
    if (!colon)
        return -1;
    *colon = 0;
    if (strlen(dec) >= ulen || strlen(colon + 1) >= plen) {
        explicit_bzero(dec, sizeof dec);
        return -1;
    }
    strcpy(user, dec);
    strcpy(pass, colon + 1);
    explicit_bzero(dec, sizeof dec);
    return 0;
}

/* Compares without an early exit, so timing does not tell how much matched. */
static int same(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

int auth_verify_hash(const char *password, const char *hash)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    if (!cd)
        return 0;
    const char *r = crypt_r(password, hash, cd);
    int ok = r && r[0] != '*' && same(r, hash);
    explicit_bzero(cd, sizeof *cd);
    free(cd);
    return ok;
}

auth_verdict auth_check_fast(auth *a, const char *header, auth_cred *cred)
{
    memset(cred, 0, sizeof *cred);
    if (auth_parse_basic(header, cred->user, sizeof cred->user, cred->pass, sizeof cred->pass) != 0)
        return AUTH_DENY;
    uint64_t now = gw_mono_us();
    auth_verdict v = AUTH_VERIFY;
    pthread_mutex_lock(&a->lock);
    cred->pad_to = a->max_cost;
    for (int i = 0; i < a->nusers; i++)
        if (strcmp(a->users[i].name, cred->user) == 0 && strlen(a->users[i].hash) < sizeof cred->hash) {
            strcpy(cred->hash, a->users[i].hash);
            cred->known = 1;
            cred->pad_from = a->costs[i];
        }
    for (int i = 0; cred->known && i < CACHE_SLOTS; i++) {
        cache_slot *s = &a->cache[i];
        if (s->expires_us > now && same(s->user, cred->user) && same(s->pass, cred->pass)) {
            s->expires_us = now + CACHE_TTL_US; /* a client that keeps scraping stays cached */
            v = AUTH_ALLOW;
        }
    }
    pthread_mutex_unlock(&a->lock);
    if (v == AUTH_ALLOW) {
        explicit_bzero(cred, sizeof *cred);
    } else if (!cred->known) {
        snprintf(cred->hash, sizeof cred->hash, "$2b$%02d$%s", cred->pad_to, DUMMY_SALT);
        cred->pad_from = cred->pad_to;
    }
    return v;
}

/* Dummy bcrypt runs at costs from..to-1: 2^from + ... + 2^(to-1) = 2^to - 2^from rounds, so that a
 * check at cost `from` plus these costs what one at cost `to` does. */
static void pad_cost(const char *pass, int from, int to)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    if (!cd)
        return;
    for (int k = from < BCRYPT_MIN_COST ? BCRYPT_MIN_COST : from; k < to && k <= BCRYPT_MAX_COST; k++) {
        char setting[64];
        snprintf(setting, sizeof setting, "$2b$%02d$%s", k, DUMMY_SALT);
        crypt_r(pass, setting, cd);
    }
    explicit_bzero(cd, sizeof *cd);
    free(cd);
}

int auth_check_slow(auth *a, auth_cred *cred)
{
    int ok = auth_verify_hash(cred->pass, cred->hash) && cred->known;
    pad_cost(cred->pass, cred->pad_from, cred->pad_to);
    if (ok) {
        pthread_mutex_lock(&a->lock);
        /* The users may have been replaced meanwhile: cache only if the hash is still theirs. */
        int current = 0;
        for (int i = 0; i < a->nusers; i++)
            if (strcmp(a->users[i].name, cred->user) == 0 && strcmp(a->users[i].hash, cred->hash) == 0)
                current = 1;
        if (current) {
            cache_slot *s = &a->cache[a->next_slot];
            a->next_slot = (a->next_slot + 1) % CACHE_SLOTS;
            gw_strlcpy(s->user, cred->user, sizeof s->user);
            gw_strlcpy(s->pass, cred->pass, sizeof s->pass);
            s->expires_us = gw_mono_us() + CACHE_TTL_US;
        }
        ok = current;
        pthread_mutex_unlock(&a->lock);
    }
    explicit_bzero(cred, sizeof *cred);
    return ok;
}

int auth_check(auth *a, const char *header)
{
    auth_cred cred;
    switch (auth_check_fast(a, header, &cred)) {
    case AUTH_ALLOW: return 1;
    case AUTH_DENY: explicit_bzero(&cred, sizeof cred); return 0;
    default: return auth_check_slow(a, &cred);
    }
}

int auth_hash_password(const char *password, char *out, size_t outlen)
{
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    if (!crypt_gensalt_rn("$2b$", 10, NULL, 0, salt, (int)sizeof salt))
        return -1;
    struct crypt_data *cd = calloc(1, sizeof *cd);
    if (!cd)
        return -1;
    const char *r = crypt_r(password, salt, cd);
    int rc = -1;
    if (r && r[0] != '*' && strlen(r) < outlen) {
        strcpy(out, r);
        rc = 0;
    }
    explicit_bzero(cd, sizeof *cd);
    free(cd);
    return rc;
}
