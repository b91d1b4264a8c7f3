/* test_agent_gzip.c - gzip for /metrics: the two-part stream inflates to exactly the identity page
 * (empty, small and >64 KiB tails, empty GPU part), and Accept-Encoding decides gzip or identity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "accept_encoding.h"
#include "gzip_page.h"

/* Text like a page: `n` bytes of metric lines. */
static char *page_text(size_t n, unsigned seed)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    size_t off = 0;
    while (off < n) {
        char line[96];
        int k = snprintf(line, sizeof line, "DCGM_FI_DEV_GPU_TEMP{gpu=\"%u\",UUID=\"GPU-%08x\"} %u\n", seed % 8,
                         seed * 2654435761u, seed % 97);
        size_t take = (size_t)k < n - off ? (size_t)k : n - off;
        memcpy(s + off, line, take);
        off += take;
        seed++;
    }
    s[n] = 0;
    return s;
}

/* z (a whole gzip stream) through zlib's own gzip reader must give gpus + tail, byte for byte. */
static void check_inflates(const unsigned char *z, size_t zlen, const char *gpus, size_t gpus_len, const char *tail,
                           size_t tail_len)
{
    size_t want = gpus_len + tail_len;
    unsigned char *out = malloc(want + 16);
    assert_non_null(out);
    z_stream s;
    memset(&s, 0, sizeof s);
    assert_int_equal(inflateInit2(&s, 16 + 15), Z_OK); /* gzip wrapper: checks CRC and ISIZE */
    s.next_in = (Bytef *)(uintptr_t)z;
    s.avail_in = (uInt)zlen;
    s.next_out = out;
    s.avail_out = (uInt)(want + 16);
    assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
    assert_int_equal(s.avail_in, 0); /* nothing after the trailer */
    assert_int_equal(s.total_out, want);
    if (gpus_len)
        assert_memory_equal(out, gpus, gpus_len);
    if (tail_len)
        assert_memory_equal(out + gpus_len, tail, tail_len);
    inflateEnd(&s);
    free(out);
}

/* The deflated head, then the tail's stored blocks and the trailer, inflate to gpus + tail. */
static void check_roundtrip(size_t gpus_len, size_t tail_len)
{
    char *gpus = page_text(gpus_len, 1), *tail = page_text(tail_len, 7);
    gzip_head h;
    assert_int_equal(gzip_head_build(&h, gpus, gpus_len), 0);
    assert_true(h.len >= 10);
    assert_int_equal(h.data[0], 0x1f);
    assert_int_equal(h.data[1], 0x8b);
    size_t zlen = 0;
    unsigned char *z = gzip_page_build(&h, tail, tail_len, &zlen);
    assert_non_null(z);
    assert_memory_equal(z, h.data, h.len);
    check_inflates(z, zlen, gpus, gpus_len, tail, tail_len);
    free(z);
    gzip_head_release(&h);
    assert_null(h.data);
    free(gpus);
    free(tail);
}

static void test_empty_tail(void **st)
{
    (void)st;
    check_roundtrip(132000, 0);
}
static void test_small_tail(void **st)
{
    (void)st;
    check_roundtrip(132000, 900);
}
static void test_big_tail(void **st)
{
    (void)st;
    check_roundtrip(5000, 65535);  /* exactly one full stored block */
    check_roundtrip(5000, 65536);  /* one full block and one of a byte */
    check_roundtrip(5000, 200000); /* four blocks */
}
static void test_empty_gpus(void **st)
{
    (void)st;
    check_roundtrip(0, 700);
    check_roundtrip(0, 0);
}

/* The compressed part is much smaller than the text (level 1 still finds the repetition). */
static void test_compresses(void **st)
{
    (void)st;
    char *gpus = page_text(132000, 3);
    gzip_head h;
    assert_int_equal(gzip_head_build(&h, gpus, 132000), 0);
    assert_true(h.len < 132000 / 4);
    assert_int_equal(h.in_len, 132000);
    gzip_head_release(&h);
    free(gpus);
}

static void test_accept_encoding(void **st)
{
    (void)st;
    static const struct {
        const char *h;
        int gzip;
    } cases[] = {
        {NULL, 0},
        {"", 0},
        {"identity", 0},
        {"gzip", 1},
        {"GZip", 1},
        {"x-gzip", 1},
        {"gzip, deflate, br", 1},
        {"deflate, gzip", 1},
        {"br,gzip;q=0.5", 1},
        {"gzip;q=0", 0},
        {"gzip; q=0.000", 0},
        {"gzip;Q=0", 0},
        {"gzip;q=0.001", 1},
        {"gzip;q=1.0", 1},
        {"*", 1},
        {"*;q=0", 0},
        {"*, gzip;q=0", 0},
        {"gzip;q=0, *", 0},
        {"identity;q=1, *;q=0.1", 1},
        {"deflate", 0},
        {"gzipx", 0},
        {"  gzip  ;  q=0.8 , identity", 1},
        {"gzip;level=9", 1},
        {",,gzip,", 1},
        {"identity, gzip;q=0", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = accept_gzip(cases[i].h);
        if (got != cases[i].gzip)
            fail_msg("Accept-Encoding \"%s\": got %d, want %d", cases[i].h ? cases[i].h : "(none)", got, cases[i].gzip);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_tail), cmocka_unit_test(test_small_tail), cmocka_unit_test(test_big_tail),
        cmocka_unit_test(test_empty_gpus), cmocka_unit_test(test_compresses), cmocka_unit_test(test_accept_encoding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
