/* test_agent_auth.c - basic-auth header parsing, bcrypt hashing/verification, and auth_check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "agent/auth.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_hash_and_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
