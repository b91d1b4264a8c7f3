/* test_agent_auth.c - basic-auth header parsing, bcrypt hashing/verification, auth_check in one and
 * two steps, and the password-check worker (bounded queue, stop). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include "agent/auth.h"
#include "agent/auth_worker.h"

static void test_parse(void **st)
{
    (void)st;
    char u[64], p[64];
    assert_int_equal(auth_parse_basic("Basic YWxpY2U6czNjcmV0", u, sizeof u, p, sizeof p), 0); /* alice:s3cret */
    assert_string_equal(u, "alice");
    assert_string_equal(p, "s3cret");
    assert_int_equal(auth_parse_basic("basic   YTpiOmM=  ", u, sizeof u, p, sizeof p), 0);      /* a:b:c */
    assert_string_equal(u, "a");
    assert_string_equal(p, "b:c");
    assert_int_equal(auth_parse_basic("Basic Og==", u, sizeof u, p, sizeof p), 0);              /* ":" */
    assert_string_equal(u, "");
    assert_int_equal(auth_parse_basic(NULL, u, sizeof u, p, sizeof p), -1);
    assert_int_equal(auth_parse_basic("Bearer abc", u, sizeof u, p, sizeof p), -1);
    assert_int_equal(auth_parse_basic("Basic YWxpY2U", u, sizeof u, p, sizeof p), -1);         /* bad length */
    assert_int_equal(auth_parse_basic("Basic YW*pY2U6", u, sizeof u, p, sizeof p), -1);        /* bad char */
    assert_int_equal(auth_parse_basic("Basic YWxpY2U=", u, sizeof u, p, sizeof p), -1);        /* no colon */
    assert_int_equal(auth_parse_basic("Basic YWxpY2U6czNjcmV0", u, 3, p, sizeof p), -1);       /* too long */
    assert_int_equal(auth_parse_basic("Basic =YWx", u, sizeof u, p, sizeof p), -1);
}

static void test_hash_and_check(void **st)
{
    (void)st;
    char hash[128];
    assert_int_equal(auth_hash_password("s3cret", hash, sizeof hash), 0);
    assert_memory_equal(hash, "$2b$10$", 7);
    assert_true(auth_verify_hash("s3cret", hash));
    assert_false(auth_verify_hash("wrong", hash));
    assert_false(auth_verify_hash("s3cret", "$2y$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv"));
    auth *a = auth_new();
    assert_false(auth_enabled(a));
    cfg_user users[] = {{"alice", hash}};
    assert_int_equal(auth_set_users(a, users, 1), 0);
    assert_true(auth_enabled(a));
    assert_true(auth_check(a, "Basic YWxpY2U6czNjcmV0"));     /* alice:s3cret */
    assert_true(auth_check(a, "Basic YWxpY2U6czNjcmV0"));     /* cached */
    assert_false(auth_check(a, "Basic YWxpY2U6czNjcmV1"));    /* alice:s3creu */
    assert_false(auth_check(a, "Basic Ym9iOnMzY3JldA=="));    /* bob:s3cret */
    assert_false(auth_check(a, NULL));
    /* a new user list empties the cache */
    cfg_user other[] = {{"bob", hash}};
    auth_set_users(a, other, 1);
    assert_false(auth_check(a, "Basic YWxpY2U6czNjcmV0"));
    assert_true(auth_check(a, "Basic Ym9iOnMzY3JldA=="));
    auth_free(a);
}

/* The two-step check: the fast step answers from the cache or the header alone, never with bcrypt. */
static void test_fast_and_slow(void **st)
{
    (void)st;
    char hash[128];
    assert_int_equal(auth_hash_password("s3cret", hash, sizeof hash), 0);
    auth *a = auth_new();
    cfg_user users[] = {{"alice", hash}};
    auth_set_users(a, users, 1);
    auth_cred c;
    assert_int_equal(auth_check_fast(a, "Bearer x", &c), AUTH_DENY);
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_VERIFY);   /* not cached yet */
    assert_true(c.known);
    assert_string_equal(c.hash, hash);
    assert_true(auth_check_slow(a, &c));
    assert_int_equal(c.pass[0], 0);                                                   /* wiped */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_ALLOW);    /* cached */
    /* an unknown user goes through bcrypt too (a dummy hash), and is refused */
    assert_int_equal(auth_check_fast(a, "Basic Ym9iOnMzY3JldA==", &c), AUTH_VERIFY);   /* bob:s3cret */
    assert_false(c.known);
    assert_memory_equal(c.hash, "$2b$10$", 7);
    assert_false(auth_check_slow(a, &c));
    /* a check that ends after the users were replaced does not fill the new cache */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_ALLOW);
    auth_set_users(a, users, 1);                                                      /* empties the cache */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_VERIFY);
    char other[128];
    assert_int_equal(auth_hash_password("s3cret", other, sizeof other), 0);
    cfg_user replaced[] = {{"alice", other}};
    auth_set_users(a, replaced, 1);
    assert_false(auth_check_slow(a, &c));                      /* the old hash is no longer alice's */
    auth_free(a);
}

/* The done callback counts jobs, and can hold the worker inside it (gate closed) so that the test
 * knows exactly what is queued. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, gate_closed, inside;
} jd = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void on_done(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&jd.lock);
    jd.done++;
    jd.inside = 1;
    pthread_cond_broadcast(&jd.cond);
    while (jd.gate_closed)
        pthread_cond_wait(&jd.cond, &jd.lock);
    jd.inside = 0;
    pthread_mutex_unlock(&jd.lock);
}

static void wait_until(int *what, int value)
{
    pthread_mutex_lock(&jd.lock);
    while (*what < value)
        pthread_cond_wait(&jd.cond, &jd.lock);
    pthread_mutex_unlock(&jd.lock);
}

static void set_gate(int closed)
{
    pthread_mutex_lock(&jd.lock);
    jd.gate_closed = closed;
    pthread_cond_broadcast(&jd.cond);
    pthread_mutex_unlock(&jd.lock);
}

static void job_for(auth *a, auth_job *j, const char *header)
{
    memset(j, 0, sizeof *j);
    assert_int_equal(auth_check_fast(a, header, &j->cred), AUTH_VERIFY);
    j->result = -1;
}

/* The worker: one check at a time in FIFO order, a bounded queue (then BUSY), a stop that answers
 * every queued job. */
static void test_worker(void **st)
{
    (void)st;
    char hash[128];
    assert_int_equal(auth_hash_password("s3cret", hash, sizeof hash), 0);
    auth *a = auth_new();
    /* several users with the same password, so that no job is answered from another's cache entry */
    cfg_user users[] = {{"alice", hash}, {"carol", hash}, {"dave", hash}, {"erin", hash}};
    auth_set_users(a, users, 4);
    auth_worker *w = auth_worker_start(a, 2, on_done);
    assert_non_null(w);
    enum { N = 6 };
    auth_job j[N];
    const char *headers[N] = {"Basic YWxpY2U6czNjcmV0", "Basic YWxpY2U6czNjcmV1", "Basic Ym9iOnMzY3JldA==",
                              "Basic Y2Fyb2w6czNjcmV0", "Basic ZGF2ZTpzM2NyZXQ=", "Basic ZXJpbjpzM2NyZXQ="};
    /* alice:s3cret, alice:s3creu, bob:s3cret (unknown), carol, dave, erin:s3cret */
    const int expect[N] = {AUTH_JOB_ALLOWED, AUTH_JOB_DENIED, AUTH_JOB_DENIED,
                           AUTH_JOB_BUSY, AUTH_JOB_BUSY, AUTH_JOB_BUSY};
    set_gate(1);
    job_for(a, &j[0], headers[0]);
    assert_int_equal(auth_worker_submit(w, &j[0]), 0);
    wait_until(&jd.inside, 1);                 /* the worker holds job 0: the queue is empty */
    for (int i = 1; i < N; i++) {
        job_for(a, &j[i], headers[i]);
        assert_int_equal(auth_worker_submit(w, &j[i]), i <= 2 ? 0 : -1);   /* two fit in the queue */
    }
    set_gate(0);
    wait_until(&jd.done, 3);
    for (int i = 0; i < N; i++)
        assert_int_equal(j[i].result, expect[i]);
    unsigned long checked, refused;
    auth_worker_counts(w, &checked, &refused);
    assert_int_equal(checked, 3);
    assert_int_equal(refused, 3);
    /* stop with jobs queued: each one is answered, none lost */
    set_gate(1);
    job_for(a, &j[0], "Basic Y2Fyb2w6czNjcmV0");   /* carol */
    assert_int_equal(auth_worker_submit(w, &j[0]), 0);
    wait_until(&jd.done, 4);
    job_for(a, &j[1], "Basic ZGF2ZTpzM2NyZXQ=");   /* dave */
    job_for(a, &j[2], "Basic ZXJpbjpzM2NyZXQ=");   /* erin */
    assert_int_equal(auth_worker_submit(w, &j[1]), 0);
    assert_int_equal(auth_worker_submit(w, &j[2]), 0);
    set_gate(0);
    auth_worker_stop(w);
    assert_int_equal(jd.done, 6);
    assert_int_equal(j[0].result, AUTH_JOB_ALLOWED);
    for (int i = 1; i <= 2; i++)   /* denied at once if the stop came first, else checked */
        assert_true(j[i].result == AUTH_JOB_ALLOWED || j[i].result == AUTH_JOB_DENIED);
    auth_set_users(a, users, 4);
    job_for(a, &j[3], "Basic YWxpY2U6czNjcmV0");
    assert_int_equal(auth_worker_submit(w, &j[3]), -1);  /* stopped: refused, never queued */
    assert_int_equal(j[3].result, AUTH_JOB_BUSY);
    auth_worker_free(w);
    auth_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_hash_and_check),
        cmocka_unit_test(test_fast_and_slow),
        cmocka_unit_test(test_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
