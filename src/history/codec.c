/* codec.c - chunk column codec: integer series as delta or delta-of-delta residuals in Rice codes
 * (optionally with zero-run tokens), doubles as constants, integers at a decimal or binary scale
 * (with their common step taken out), or the cheaper of Gorilla XOR and the bit patterns' deltas. */
#include "codec.h"
#include "numcode.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RICE_ESC_Q 24 /* quotients from here on escape to a raw 64-bit value */
#define MAX_DECIMALS 6
#define SCALE_BINARY 0x40 /* COL_SCALED: values are k / 2^20 (MiB from bytes) */
#define BINARY_FACTOR 1048576.0

/* ---------- integer series ---------- */

/* Residuals of order 1 (deltas) or 2 (delta of deltas, the first against a delta of 0), zigzagged. */
static void residuals(const int64_t *x, size_t m, int order, uint64_t *zz)
{
    uint64_t prev_delta = 0;
    for (size_t i = 1; i < m; i++) {
        uint64_t delta = (uint64_t)x[i] - (uint64_t)x[i - 1];
        zz[i - 1] = num_zigzag((int64_t)(order == 2 ? delta - prev_delta : delta));
        prev_delta = delta;
    }
}

static uint64_t rice_bits(uint64_t z, int k)
{
    uint64_t q = z >> k;
    return q >= RICE_ESC_Q ? RICE_ESC_Q + 64 : q + 1 + (uint64_t)k;
}

static void rice_put(bit_writer *w, uint64_t z, int k)
{
    uint64_t q = z >> k;
    if (q >= RICE_ESC_Q) {
        bit_writer_put(w, (1ull << RICE_ESC_Q) - 1, RICE_ESC_Q);
        bit_writer_put(w, z, 64);
        return;
    }
    bit_writer_put(w, ((1ull << q) - 1) << 1, (int)q + 1); /* q ones then a zero */
    bit_writer_put(w, z & ((1ull << k) - 1), k);
}

static uint64_t rice_get(bit_reader *r, int k)
{
    uint64_t q = (uint64_t)bit_reader_unary(r, RICE_ESC_Q);
    if (r->in->bad)
        return 0;
    if (q == RICE_ESC_Q)
        return bit_reader_get(r, 64);
    return (q << k) | bit_reader_get(r, k);
}

static uint64_t gamma_bits(uint64_t run)
{
    return 2 * (uint64_t)bitlen64(run) - 1;
}

static void gamma_put(bit_writer *w, uint64_t run)
{
    int len = bitlen64(run);
    bit_writer_put(w, 0, len - 1);
    bit_writer_put(w, run, len);
}

static uint64_t gamma_get(bit_reader *r)
{
    int zeros = 0;
    while (zeros < 64 && !bit_reader_bit(r))
        zeros++;
    if (zeros >= 64 || r->in->bad) {
        r->in->bad = 1;
        return 0;
    }
    return (1ull << zeros) | bit_reader_get(r, zeros);
}

/* Style and Rice parameter of a residual series: plain Rice(k), or zero runs as Elias-gamma tokens
 * and other values as Rice(k) of |z|-1. Costs are exact, for four k around the mean's optimum
 * of each style, in two passes. */
typedef struct rice_choice {
    int zrun, k;
    uint64_t bits;
} rice_choice;

static int k_near_mean(double sum, size_t cnt)
{
    int k = cnt ? bitlen64((uint64_t)(sum / (double)cnt * 0.69)) : 0;
    k = k > 2 ? k - 2 : 0;
    return k > 59 ? 59 : k;
}

static rice_choice choose_rice(const uint64_t *zz, size_t m)
{
    double sum_all = 0, sum_nz = 0;
    size_t nz = 0;
    uint64_t run_bits = 0, run = 0;
    for (size_t i = 0; i < m; i++) {
        sum_all += (double)zz[i];
        if (zz[i]) {
            sum_nz += (double)(zz[i] - 1);
            nz++;
            if (run) {
                run_bits += 1 + gamma_bits(run);
                run = 0;
            }
        } else {
            run++;
        }
    }
    if (run)
        run_bits += 1 + gamma_bits(run);
    int kp = k_near_mean(sum_all, m), kz = k_near_mean(sum_nz, nz);
    uint64_t cp[4] = {0}, cz[4] = {run_bits, run_bits, run_bits, run_bits};
    for (size_t i = 0; i < m; i++) {
        uint64_t z = zz[i];
        for (int c = 0; c < 4; c++) {
            cp[c] += rice_bits(z, kp + c);
            if (z)
                cz[c] += 1 + rice_bits(z - 1, kz + c);
        }
    }
    rice_choice best = {0, kp, cp[0]};
    for (int c = 0; c < 4; c++) {
        if (cp[c] < best.bits)
            best = (rice_choice){0, kp + c, cp[c]};
        if (cz[c] < best.bits)
            best = (rice_choice){1, kz + c, cz[c]};
    }
    return best;
}

static void int_series_put(gw_buf *out, const int64_t *x, size_t m)
{
    bytes_put_varint(out, num_zigzag(x[0]));
    if (m < 2)
        return;
    uint64_t *zz = malloc(2 * (m - 1) * sizeof *zz);
    if (!zz) {
        out->oom = 1;
        return;
    }
    uint64_t *cand[2] = {zz, zz + (m - 1)};
    residuals(x, m, 1, cand[0]);
    residuals(x, m, 2, cand[1]);
    rice_choice c1 = choose_rice(cand[0], m - 1), c2 = choose_rice(cand[1], m - 1);
    int b_order = c2.bits < c1.bits ? 2 : 1;
    int b_zrun = b_order == 2 ? c2.zrun : c1.zrun, b_k = b_order == 2 ? c2.k : c1.k;
    const uint64_t *r = cand[b_order - 1];
    bytes_put_u8(out, (uint8_t)(((b_order - 1) << 7) | (b_zrun << 6) | b_k));
    bit_writer w;
    bit_writer_init(&w, out);
    for (size_t i = 0; i < m - 1;) {
        if (b_zrun && r[i] == 0) {
            size_t j = i;
            while (j < m - 1 && r[j] == 0)
                j++;
            bit_writer_put(&w, 0, 1);
            gamma_put(&w, j - i);
            i = j;
        } else {
            if (b_zrun)
                bit_writer_put(&w, 1, 1);
            rice_put(&w, b_zrun ? r[i] - 1 : r[i], b_k);
            i++;
        }
    }
    bit_writer_flush(&w);
    free(zz);
}

static int int_series_get(byte_cursor *in, int64_t *x, size_t m)
{
    if (m == 0)
        return 0;
    x[0] = num_unzigzag(cursor_varint(in));
    if (m < 2)
        return in->bad ? -1 : 0;
    uint8_t p = cursor_u8(in);
    int order = (p >> 7) + 1, zrun = (p >> 6) & 1, k = p & 63;
    bit_reader r;
    bit_reader_init(&r, in);
    uint64_t delta = 0;
    for (size_t i = 1; i < m && !in->bad;) {
        uint64_t run = 1, z = 0;
        if (zrun && !bit_reader_bit(&r)) {
            run = gamma_get(&r);
            if (run > m - i) {
                in->bad = 1;
                break;
            }
        } else {
            z = rice_get(&r, k) + (zrun ? 1 : 0);
        }
        for (uint64_t j = 0; j < run; j++, i++) {
            uint64_t res = (uint64_t)num_unzigzag(z);
            delta = order == 2 ? delta + res : res;
            x[i] = (int64_t)((uint64_t)x[i - 1] + delta);
        }
    }
    bit_reader_done(&r);
    return in->bad ? -1 : 0;
}

/* ---------- timestamps ---------- */

void codec_put_times(gw_buf *out, const int64_t *t, size_t n)
{
    bytes_put_varint(out, n);
    if (n)
        int_series_put(out, t, n);
}

int codec_get_times(byte_cursor *in, int64_t *t, size_t max, size_t *n)
{
    uint64_t cnt = cursor_varint(in);
    if (in->bad || cnt > max)
        return -1;
    *n = (size_t)cnt;
    return int_series_get(in, t, *n);
}

size_t codec_peek_count(const byte_cursor *in)
{
    byte_cursor c = *in;
    uint64_t n = cursor_varint(&c);
    return c.bad ? 0 : (size_t)n;
}

/* ---------- value columns ---------- */

static const double pow10_tab[MAX_DECIMALS + 1] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};

/* Integer k with v == k / 10^d exactly (bit for bit), or -1 when there is none. */
static int to_scaled(double v, int d, int64_t *k)
{
    return num_to_scaled(v, pow10_tab[d], k);
}

/* Smallest number of decimals that represents every value exactly, or -1. */
static int find_decimals(const double *v, size_t m)
{
    for (int d = 0; d <= MAX_DECIMALS; d++) {
        size_t i;
        int64_t k;
        for (i = 0; i < m; i++)
            if (to_scaled(v[i], d, &k) != 0)
                break;
        if (i == m)
            return d;
    }
    return -1;
}

static void xor_put(gw_buf *out, const double *v, size_t m)
{
    uint64_t prev = num_bits(v[0]);
    bytes_put_u64(out, prev);
    bit_writer w;
    bit_writer_init(&w, out);
    int lead = -1, trail = 0;
    for (size_t i = 1; i < m; i++) {
        uint64_t cur = num_bits(v[i]), x = cur ^ prev;
        prev = cur;
        if (!x) {
            bit_writer_put(&w, 0, 1);
            continue;
        }
        int l = __builtin_clzll(x), t = __builtin_ctzll(x);
        if (lead >= 0 && l >= lead && t >= trail) {
            bit_writer_put(&w, 2, 2); /* '10': same window */
            bit_writer_put(&w, x >> trail, 64 - lead - trail);
        } else {
            lead = l;
            trail = t;
            bit_writer_put(&w, 3, 2); /* '11': new window */
            bit_writer_put(&w, (uint64_t)lead, 6);
            bit_writer_put(&w, (uint64_t)(64 - lead - trail - 1), 6);
            bit_writer_put(&w, x >> trail, 64 - lead - trail);
        }
    }
    bit_writer_flush(&w);
}

static int xor_get(byte_cursor *in, double *v, size_t m)
{
    uint64_t prev = cursor_u64(in);
    v[0] = num_double(prev);
    bit_reader r;
    bit_reader_init(&r, in);
    int lead = -1, trail = 0;
    for (size_t i = 1; i < m && !in->bad; i++) {
        if (bit_reader_bit(&r)) {
            if (bit_reader_bit(&r)) {
                lead = (int)bit_reader_get(&r, 6);
                int len = (int)bit_reader_get(&r, 6) + 1;
                trail = 64 - lead - len;
                if (trail < 0) {
                    in->bad = 1;
                    break;
                }
            } else if (lead < 0) {
                in->bad = 1;
                break;
            }
            prev ^= bit_reader_get(&r, 64 - lead - trail) << trail;
        }
        v[i] = num_double(prev);
    }
    bit_reader_done(&r);
    return in->bad ? -1 : 0;
}

/* Presence: 0 = every slot, else 1 + alternating run lengths (present first). */
static void presence_put(gw_buf *out, const uint8_t *present, size_t n)
{
    size_t runs = 0;
    for (size_t i = 0; present && i < n; i++)
        if (!present[i]) {
            runs = 1;
            break;
        }
    if (!runs) {
        bytes_put_u8(out, 0);
        return;
    }
    bytes_put_u8(out, 1);
    int state = 1;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && (present[j] != 0) == state)
            j++;
        bytes_put_varint(out, j - i);
        i = j;
        state = !state;
    }
}

static int presence_get(byte_cursor *in, uint8_t *present, size_t n, size_t *count)
{
    uint8_t flag = cursor_u8(in);
    if (flag == 0) {
        if (present)
            memset(present, 1, n);
        *count = n;
        return in->bad ? -1 : 0;
    }
    if (flag != 1)
        return -1;
    size_t i = 0, cnt = 0;
    int state = 1;
    while (i < n && !in->bad) {
        uint64_t len = cursor_varint(in);
        if (len > n - i)
            return -1;
        if (present)
            memset(present + i, state, (size_t)len);
        if (state)
            cnt += (size_t)len;
        i += (size_t)len;
        state = !state;
    }
    *count = cnt;
    return in->bad ? -1 : 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Integers k (at scale `scale`): COL_INT, or COL_SCALED when the scale is binary or the values
 * move in steps of g > 1 (k = k0 + g * j; j is coded). */
static void put_integers(gw_buf *out, const uint8_t *present, size_t n, int64_t *k, size_t m, int scale)
{
    uint64_t g = 0;
    for (size_t i = 1; i < m && g != 1; i++) {
        uint64_t d = (uint64_t)k[i] - (uint64_t)k[0];
        if ((int64_t)d < 0)
            d = 0 - d;
        g = gcd64(d, g);
    }
    if (scale != SCALE_BINARY && g <= 1) {
        bytes_put_u8(out, COL_INT);
        presence_put(out, present, n);
        bytes_put_u8(out, (uint8_t)scale);
        int_series_put(out, k, m);
        return;
    }
    if (g == 0)
        g = 1;
    int64_t k0 = k[0];
    for (size_t i = 0; i < m; i++) {
        uint64_t d = (uint64_t)k[i] - (uint64_t)k0;
        k[i] = (int64_t)d < 0 ? -(int64_t)((0 - d) / g) : (int64_t)(d / g);
    }
    bytes_put_u8(out, COL_SCALED);
    presence_put(out, present, n);
    bytes_put_u8(out, (uint8_t)scale);
    bytes_put_varint(out, num_zigzag(k0));
    bytes_put_varint(out, g);
    int_series_put(out, k, m);
}

/* Full-precision doubles: Gorilla XOR, or their bit patterns' deltas as integers, the shorter. */
static void put_doubles(gw_buf *out, const uint8_t *present, size_t n, const double *vals, size_t m)
{
    gw_buf x = {0}, d = {0};
    bytes_put_u8(&x, COL_XOR);
    presence_put(&x, present, n);
    xor_put(&x, vals, m);
    int64_t *bits = malloc(m * sizeof *bits);
    if (bits) {
        for (size_t i = 0; i < m; i++)
            bits[i] = (int64_t)num_bits(vals[i]);
        bytes_put_u8(&d, COL_BITS);
        presence_put(&d, present, n);
        int_series_put(&d, bits, m);
        free(bits);
    }
    const gw_buf *best = bits && !d.oom && d.len < x.len ? &d : &x;
    buf_append(out, best->data, best->len);
    if (best->oom)
        out->oom = 1;
    buf_release(&x);
    buf_release(&d);
}

void codec_put_column(gw_buf *out, const double *v, const uint8_t *present, size_t n)
{
    double *vals = malloc((n ? n : 1) * sizeof *vals);
    if (!vals) {
        out->oom = 1;
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!present || present[i])
            vals[m++] = v[i];
    int constant = m > 0;
    for (size_t i = 1; i < m && constant; i++)
        constant = num_bits(vals[i]) == num_bits(vals[0]);
    int scale = (m && !constant) ? find_decimals(vals, m) : -1;
    if (m && !constant && scale < 0) {
        int64_t k;
        size_t i = 0;
        while (i < m && num_to_scaled(vals[i], BINARY_FACTOR, &k) == 0)
            i++;
        if (i == m)
            scale = SCALE_BINARY;
    }
    if (m == 0) {
        bytes_put_u8(out, COL_EMPTY);
    } else if (constant) {
        bytes_put_u8(out, COL_CONST);
        presence_put(out, present, n);
        bytes_put_u64(out, num_bits(vals[0]));
    } else if (scale >= 0) {
        int64_t *k = malloc(m * sizeof *k);
        if (!k) {
            out->oom = 1;
            free(vals);
            return;
        }
        double factor = scale == SCALE_BINARY ? BINARY_FACTOR : pow10_tab[scale];
        for (size_t i = 0; i < m; i++)
            num_to_scaled(vals[i], factor, &k[i]);
        put_integers(out, present, n, k, m, scale);
        free(k);
    } else {
        put_doubles(out, present, n, vals, m);
    }
    free(vals);
}

void codec_put_const_run(gw_buf *out, double v, size_t from, size_t end, size_t n)
{
    bytes_put_u8(out, COL_CONST);
    if (from == 0 && end == n) {
        bytes_put_u8(out, 0);
    } else {
        bytes_put_u8(out, 1); /* runs alternate present/absent, present first */
        if (from > 0) {
            bytes_put_varint(out, 0);
            bytes_put_varint(out, from);
        }
        bytes_put_varint(out, end - from);
        if (end < n)
            bytes_put_varint(out, n - end);
    }
    bytes_put_u64(out, num_bits(v));
}

int codec_get_column(byte_cursor *in, double *v, uint8_t *present, size_t n)
{
    uint8_t mode = cursor_u8(in);
    if (in->bad)
        return -1;
    if (mode == COL_EMPTY) {
        if (present)
            memset(present, 0, n);
        return 0;
    }
    if (mode > COL_BITS)
        return -1;
    uint8_t *pres = present ? present : malloc(n ? n : 1);
    double *vals = malloc((n ? n : 1) * sizeof *vals);
    size_t m = 0;
    int rc = -1;
    if (!pres || !vals || presence_get(in, pres, n, &m) != 0 || m == 0)
        goto out;
    if (mode == COL_CONST) {
        double c = num_double(cursor_u64(in));
        for (size_t i = 0; i < m; i++)
            vals[i] = c;
        rc = in->bad ? -1 : 0;
    } else if (mode == COL_INT || mode == COL_SCALED) {
        int d = cursor_u8(in);
        uint64_t k0 = mode == COL_SCALED ? (uint64_t)num_unzigzag(cursor_varint(in)) : 0;
        uint64_t g = mode == COL_SCALED ? cursor_varint(in) : 1;
        int64_t *k = malloc(m * sizeof *k);
        int scale_ok = d <= MAX_DECIMALS || (mode == COL_SCALED && d == SCALE_BINARY);
        if (k && scale_ok && g && int_series_get(in, k, m) == 0) {
            for (size_t i = 0; i < m; i++) {
                int64_t x = (int64_t)(k0 + (uint64_t)k[i] * g);
                vals[i] = d == SCALE_BINARY ? (double)x / BINARY_FACTOR : d ? (double)x / pow10_tab[d] : (double)x;
            }
            rc = 0;
        }
        free(k);
    } else if (mode == COL_BITS) {
        int64_t *k = malloc(m * sizeof *k);
        if (k && int_series_get(in, k, m) == 0) {
            for (size_t i = 0; i < m; i++)
                vals[i] = num_double((uint64_t)k[i]);
            rc = 0;
        }
        free(k);
    } else {
        rc = xor_get(in, vals, m);
    }
    if (rc == 0)
        for (size_t i = 0, j = 0; i < n; i++)
            if (pres[i])
                v[i] = vals[j++];
out:
    if (pres != present)
        free(pres);
    free(vals);
    return rc;
}

int codec_column_mode(const uint8_t *col)
{
    return col[0];
}
