/* auth.h - HTTP basic authentication against bcrypt hashes (as Prometheus' web-config), with a
 * short cache of successful checks because bcrypt is deliberately slow. Thread safe. */
#ifndef GPUWATCH_AUTH_H
#define GPUWATCH_AUTH_H

#include <stddef.h>
#include "config.h"

typedef struct auth auth;

auth *auth_new(void);
void auth_free(auth *a);
/* Replaces the users (copied) and empties the cache. No users: every request is allowed. */
int auth_set_users(auth *a, const cfg_user *users, int n);
int auth_enabled(auth *a);
/* 1 when the Authorization header value names a known user with the right password (runs bcrypt
 * on the calling thread when the credentials are not cached). */
int auth_check(auth *a, const char *authorization_header);

/* The same check in two steps, so that the slow one can run off the HTTP threads (auth_worker.h):
 * auth_check_fast answers from the header and the cache; AUTH_VERIFY means bcrypt is needed, and
 * auth_check_slow then does it with the credentials kept in cred (wiped afterwards). Every
 * uncached check costs what bcrypt at the highest configured cost does: an unknown user name is
 * checked against a dummy hash of that cost, and a user whose hash costs less pays the rest in
 * dummy checks. */
#define AUTH_MAX_CRED 256
typedef struct {
    char user[AUTH_MAX_CRED];
    char pass[AUTH_MAX_CRED];
    char hash[128]; /* the user's hash, or a dummy one for an unknown user (same timing) */
    int known;
    int pad_from, pad_to; /* the check's bcrypt cost, and the highest configured (paid up to it) */
} auth_cred;
typedef enum { AUTH_DENY, AUTH_ALLOW, AUTH_VERIFY } auth_verdict;
auth_verdict auth_check_fast(auth *a, const char *authorization_header, auth_cred *cred);
int auth_check_slow(auth *a, auth_cred *cred);

/* "Basic dXNlcjpwYXNz" -> user, password. Returns 0, or -1 when malformed or too long. */
int auth_parse_basic(const char *header, char *user, size_t ulen, char *pass, size_t plen);
/* A bcrypt hash's cost ("$2b$12$..." -> 12), or -1 when it is not one. */
int auth_hash_cost(const char *hash);
/* bcrypt reads at most this many bytes of a password: the rest is ignored, so two passwords that
 * share their first 72 bytes are the same password. */
#define AUTH_BCRYPT_MAX_PASSWORD 72
/* A bcrypt hash of password ($2b$, cost 10) into out. Returns 0 or -1. */
int auth_hash_password(const char *password, char *out, size_t outlen);
/* 1 when password matches a crypt(3) hash. */
int auth_verify_hash(const char *password, const char *hash);

#endif
