/* braille.c - the braille plotter (braille.h). */
#include "braille.h"
#include <stdlib.h>
#include <string.h>

int braille_resize(braille *p, int w, int h, int ascii)
{
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    int n = w * h;
    if (n > p->cap) {
        uint8_t *bits = realloc(p->bits, (size_t)n);
        if (bits)
            p->bits = bits;
        signed char *owner = realloc(p->owner, (size_t)n);
        if (owner)
            p->owner = owner;
        uint8_t *touched = realloc(p->touched, (size_t)n);
        if (touched)
            p->touched = touched;
        if (!bits || !owner || !touched)
            return -1;
        p->cap = n;
    }
    p->w = w;
    p->h = h;
    p->ascii = ascii;
    p->dw = ascii ? w : 2 * w;
    p->dh = ascii ? h : 4 * h;
    memset(p->bits, 0, (size_t)n);
    memset(p->owner, -1, (size_t)n);
    memset(p->touched, 0, (size_t)n);
    return 0;
}

void braille_free(braille *p)
{
    free(p->bits);
    free(p->owner);
    free(p->touched);
    memset(p, 0, sizeof *p);
}

void braille_dot(braille *p, int x, int y, int series)
{
    /* braille's dot numbering: column 0 rows 0-2 are 1, 2, 4 and row 3 is 64; column 1: 8, 16, 32, 128 */
    static const uint8_t map[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    if (x < 0 || y < 0 || x >= p->dw || y >= p->dh)
        return;
    int cell = p->ascii ? y * p->w + x : y / 4 * p->w + x / 2;
    p->bits[cell] |= p->ascii ? 1 : map[y % 4][x % 2];
    p->owner[cell] = (signed char)series;
    p->touched[cell] |= (uint8_t)(series < 8 ? 1u << series : 0);
}

void braille_line(braille *p, int x0, int y0, int x1, int y1, int series)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
    for (int guard = 0; guard < 100000; guard++) {
        braille_dot(p, x0, y0, series);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

uint32_t braille_char(const braille *p, int cx, int cy)
{
    uint8_t bits = p->bits[cy * p->w + cx];
    return bits ? 0x2800u + bits : 0;
}

int braille_owner(const braille *p, int cx, int cy)
{
    return p->owner[cy * p->w + cx];
}

unsigned braille_touched(const braille *p, int cx, int cy)
{
    return p->touched[cy * p->w + cx];
}
