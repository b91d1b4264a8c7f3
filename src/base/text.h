/* text.h - text that came from outside (an agent, a lock file, a process name, a job's output):
 * the one UTF-8 decoder and the one cleaner that makes such text safe to print or store; the one
 * encoder of a character, and the one check that the terminal's locale is UTF-8. */
#ifndef GPUWATCH_TEXT_H
#define GPUWATCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the UTF-8 character at s into *cp and returns its length in bytes (1 to 4). A byte that
 * does not start a valid, shortest-form character decodes as U+FFFD with length 1. s must not be
 * at its NUL. */
size_t gw_utf8_next(const char *s, uint32_t *cp);

/* Encodes cp (a code point up to U+10FFFF) into out (at least 4 bytes); returns its length. */
size_t gw_utf8_put(uint32_t cp, char *out);

/* 1 when the locale asks for UTF-8: the first of LC_ALL, LC_CTYPE and LANG that is set names it
 * ("C.UTF-8", "en_US.utf8"); 0 otherwise (then text is drawn in ASCII). */
int gw_locale_utf8(void);

/* Cleans s in place: control characters (C0, DEL, C1: what starts a terminal escape) become '?',
 * and so do bytes that are not UTF-8. What is left prints as the text it says. Returns s. */
char *gw_clean_text(char *s);

/* 1 when s is valid UTF-8 with no control character but tab. */
int gw_text_is_clean(const char *s);

#endif
