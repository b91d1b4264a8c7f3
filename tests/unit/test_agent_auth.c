/* test_agent_auth.c - basic-auth header parsing, bcrypt hashing/verification, auth_check in one and
 * two steps, and the work queue that runs the slow step (bounded, FIFO, stop). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include "auth.h"
#include "work_queue.h"

static void test_parse(void **st)
{
    (void)st;
    char u[64], p[64];
    assert_int_equal(auth_parse_basic("Basic YWxpY2U6czNjcmV0", u, sizeof u, p, sizeof p), 0); /* alice:s3cret */
    assert_string_equal(u, "alice");
    assert_string_equal(p, "s3cret");
    assert_int_equal(auth_parse_basic("basic   YTpiOmM=  ", u, sizeof u, p, sizeof p), 0); /* a:b:c */
    assert_string_equal(u, "a");
    assert_string_equal(p, "b:c");
    assert_int_equal(auth_parse_basic("Basic Og==", u, sizeof u, p, sizeof p), 0); /* ":" */
    assert_string_equal(u, "");
    assert_int_equal(auth_parse_basic(NULL, u, sizeof u, p, sizeof p), -1);
    assert_int_equal(auth_parse_basic("Bearer abc", u, sizeof u, p, sizeof p), -1);
    assert_int_equal(auth_parse_basic("Basic YWxpY2U", u, sizeof u, p, sizeof p), -1);   /* bad length */
    assert_int_equal(auth_parse_basic("Basic YW*pY2U6", u, sizeof u, p, sizeof p), -1);  /* bad char */
    assert_int_equal(auth_parse_basic("Basic YWxpY2U=", u, sizeof u, p, sizeof p), -1);  /* no colon */
    assert_int_equal(auth_parse_basic("Basic YWxpY2U6czNjcmV0", u, 3, p, sizeof p), -1); /* too long */
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
    assert_true(auth_check(a, "Basic YWxpY2U6czNjcmV0"));  /* alice:s3cret */
    assert_true(auth_check(a, "Basic YWxpY2U6czNjcmV0"));  /* cached */
    assert_false(auth_check(a, "Basic YWxpY2U6czNjcmV1")); /* alice:s3creu */
    assert_false(auth_check(a, "Basic Ym9iOnMzY3JldA==")); /* bob:s3cret */
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
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_VERIFY); /* not cached yet */
    assert_true(c.known);
    assert_string_equal(c.hash, hash);
    assert_true(auth_check_slow(a, &c));
    assert_int_equal(c.pass[0], 0);                                                 /* wiped */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_ALLOW); /* cached */
    /* an unknown user goes through bcrypt too (a dummy hash), and is refused */
    assert_int_equal(auth_check_fast(a, "Basic Ym9iOnMzY3JldA==", &c), AUTH_VERIFY); /* bob:s3cret */
    assert_false(c.known);
    assert_memory_equal(c.hash, "$2b$10$", 7);
    assert_false(auth_check_slow(a, &c));
    /* a check that ends after the users were replaced does not fill the new cache */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_ALLOW);
    auth_set_users(a, users, 1); /* empties the cache */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_VERIFY);
    char other[128];
    assert_int_equal(auth_hash_password("s3cret", other, sizeof other), 0);
    cfg_user replaced[] = {{"alice", other}};
    auth_set_users(a, replaced, 1);
    assert_false(auth_check_slow(a, &c)); /* the old hash is no longer alice's */
    auth_free(a);
}

static void hash_at_cost(const char *pw, int cost, char *out, size_t n)
{
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    assert_non_null(crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, (int)sizeof salt));
    struct crypt_data *cd = calloc(1, sizeof *cd);
    const char *r = crypt_r(pw, salt, cd);
    assert_non_null(r);
    snprintf(out, n, "%s", r);
    free(cd);
}

/* Every uncached check costs bcrypt at the highest configured cost: an unknown user is checked
 * against a dummy hash of that cost, a cheaper user pays the difference (2^from + ... + 2^(to-1)). */
static void test_constant_cost(void **st)
{
    (void)st;
    char low[128], high[128];
    hash_at_cost("s3cret", 4, low, sizeof low);
    hash_at_cost("s3cret", 6, high, sizeof high);
    assert_int_equal(auth_hash_cost(low), 4);
    assert_int_equal(auth_hash_cost(high), 6);
    assert_int_equal(auth_hash_cost("$2b$1x$abc"), -1);
    assert_int_equal(auth_hash_cost("plain"), -1);
    assert_int_equal(auth_hash_cost(NULL), -1);
    auth *a = auth_new();
    cfg_user users[] = {{"alice", low}, {"bob", high}};
    assert_int_equal(auth_set_users(a, users, 2), 0);
    auth_cred c;
    /* carol:s3cret, unknown: a dummy hash at the highest cost, nothing to add */
    assert_int_equal(auth_check_fast(a, "Basic Y2Fyb2w6czNjcmV0", &c), AUTH_VERIFY);
    assert_false(c.known);
    assert_memory_equal(c.hash, "$2b$06$", 7);
    assert_int_equal(c.pad_from, 6);
    assert_int_equal(c.pad_to, 6);
    assert_false(auth_check_slow(a, &c));
    /* alice (cost 4) pays up to 6; her right password still passes */
    assert_int_equal(auth_check_fast(a, "Basic YWxpY2U6czNjcmV0", &c), AUTH_VERIFY);
    assert_true(c.known);
    assert_int_equal(c.pad_from, 4);
    assert_int_equal(c.pad_to, 6);
    assert_true(auth_check_slow(a, &c));
    assert_int_equal(auth_check_fast(a, "Basic Ym9iOnMzY3JldA==", &c), AUTH_VERIFY); /* bob: cost 6 already */
    assert_int_equal(c.pad_from, 6);
    assert_true(auth_check_slow(a, &c));
    auth_free(a);
}

/* Jobs for the work queue: each records its order and whether it was cancelled, and can hold the
 * queue's thread inside it (gate closed) so that the test knows exactly what is queued. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ran, gate_closed, inside;
} jd = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

typedef struct {
    wq_job job;
    int order, cancelled;
} test_job;

static void run_test_job(wq_job *job, int cancelled)
{
    test_job *t = (test_job *)job;
    pthread_mutex_lock(&jd.lock);
    t->order = ++jd.ran;
    t->cancelled = cancelled;
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

/* The queue: one job at a time in FIFO order, a bound (then refused), a stop that runs every queued
 * job cancelled, and refuses from then on. */
static void test_work_queue(void **st)
{
    (void)st;
    work_queue *q = wq_start("test-queue", 2);
    assert_non_null(q);
    enum { N = 6 };
    test_job j[N];
    memset(j, 0, sizeof j);
    for (int i = 0; i < N; i++)
        j[i].job.run = run_test_job;
    set_gate(1);
    assert_int_equal(wq_submit(q, &j[0].job), 0);
    wait_until(&jd.inside, 1); /* the thread holds job 0: the queue is empty */
    for (int i = 1; i < N; i++)
        assert_int_equal(wq_submit(q, &j[i].job), i <= 2 ? 0 : -1); /* two fit in the queue */
    set_gate(0);
    wait_until(&jd.ran, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(j[i].order, i + 1);
        assert_false(j[i].cancelled);
    }
    for (int i = 3; i < N; i++)
        assert_int_equal(j[i].order, 0); /* refused: never run */
    unsigned long ran, refused;
    wq_counts(q, &ran, &refused);
    assert_int_equal(ran, 3);
    assert_int_equal(refused, 3);
    /* a stop with jobs queued: each of them runs (cancelled unless it had started), none is lost */
    set_gate(1);
    assert_int_equal(wq_submit(q, &j[3].job), 0);
    wait_until(&jd.ran, 4);
    assert_int_equal(wq_submit(q, &j[4].job), 0);
    assert_int_equal(wq_submit(q, &j[5].job), 0);
    set_gate(0);
    wq_stop(q);
    assert_int_equal(jd.ran, 6);
    assert_false(j[3].cancelled);
    assert_int_equal(j[4].order, 5);
    assert_int_equal(j[5].order, 6);
    test_job late = {.job.run = run_test_job};
    assert_int_equal(wq_submit(q, &late.job), -1); /* stopped: refused, never run */
    assert_int_equal(late.order, 0);
    wq_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),         cmocka_unit_test(test_hash_and_check),
        cmocka_unit_test(test_fast_and_slow), cmocka_unit_test(test_constant_cost),
        cmocka_unit_test(test_work_queue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
