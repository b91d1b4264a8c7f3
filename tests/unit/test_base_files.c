/* test_base_files.c - files that other users may have put in a folder (src/base/files.c): gw_open_file
 * never blocks on a FIFO, never opens a device, never creates through a link, and with the owned
 * option refuses a hard link; gw_private_dir takes only a real folder of the user's; gw_read_file
 * refuses what is not a regular file. And the one cleaner of outside text (src/base/text.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"
#include "text.h"

static char dir[256];

static int setup(void **st)
{
    (void)st;
    snprintf(dir, sizeof dir, "/tmp/gw-files-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_fifo_and_devices(void **st)
{
    (void)st;
    char fifo[300], why[200];
    path_of(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* every way of opening it returns at once with the reason */
    int modes[] = {O_RDONLY, O_WRONLY, O_RDWR, O_RDONLY | O_CREAT};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        why[0] = 0;
        assert_int_equal(gw_open_file(fifo, modes[i], 0644, 0, why, sizeof why), -1);
        assert_string_equal(why, "not a regular file");
    }
    assert_null(gw_read_file(fifo, 1024, NULL, why, sizeof why));
    assert_string_equal(why, "not a regular file");
    assert_null(gw_read_file("/dev/zero", 1024, NULL, why, sizeof why)); /* would never end */
    assert_string_equal(why, "not a regular file");
    size_t len = 99;
    char *empty = gw_read_file("/dev/null", 1024, &len, why, sizeof why); /* "--config /dev/null" */
    assert_non_null(empty);
    assert_int_equal(len, 0);
    free(empty);
    assert_int_equal(gw_open_file("/dev/null", O_WRONLY, 0, 0, why, sizeof why), -1);
    assert_null(gw_read_file(dir, 1024, NULL, why, sizeof why));
    assert_string_equal(why, "a folder, not a file");
    /* a link to a device, with or without following links */
    char link[300];
    path_of(link, sizeof link, "null-link");
    assert_int_equal(symlink("/dev/null", link), 0);
    assert_int_equal(gw_open_file(link, O_WRONLY | O_TRUNC, 0, 0, why, sizeof why), -1);
    assert_int_equal(gw_open_file(link, O_WRONLY | O_TRUNC, 0, GW_OPEN_NOFOLLOW, why, sizeof why), -1);
}

static void test_links(void **st)
{
    (void)st;
    char target[300], link[300], missing[300], why[200];
    path_of(target, sizeof target, "target");
    path_of(link, sizeof link, "link");
    path_of(missing, sizeof missing, "missing");
    write_text(target, "precious");
    assert_int_equal(symlink(target, link), 0);
    /* a link asked for (a user's own file) is followed ... */
    int fd = gw_open_file(link, O_RDONLY, 0, 0, why, sizeof why);
    assert_true(fd >= 0);
    close(fd);
    /* ... in a shared folder it is refused, and O_TRUNC does nothing to the target */
    errno = 0;
    assert_int_equal(gw_open_file(link, O_RDWR | O_CREAT | O_TRUNC, 0644, GW_OPEN_NOFOLLOW, why, sizeof why), -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(why, "link"));
    char *text = gw_read_file(target, 100, NULL, why, sizeof why);
    assert_non_null(text);
    assert_string_equal(text, "precious");
    free(text);
    /* a dangling link: nothing is created where it points, followed or not */
    char dangling[300];
    path_of(dangling, sizeof dangling, "dangling");
    assert_int_equal(symlink(missing, dangling), 0);
    for (unsigned opts = 0; opts <= GW_OPEN_NOFOLLOW; opts += GW_OPEN_NOFOLLOW) {
        assert_int_equal(gw_open_file(dangling, O_WRONLY | O_CREAT, 0644, opts, why, sizeof why), -1);
        assert_int_equal(access(missing, F_OK), -1);
    }
}

static void test_create_and_owned(void **st)
{
    (void)st;
    char path[300], hard[300], why[200];
    path_of(path, sizeof path, "new.lock");
    mode_t old = umask(0);
    int fd = gw_open_file(path, O_RDONLY | O_CREAT, 0644, GW_OPEN_NOFOLLOW, why, sizeof why);
    umask(old);
    assert_true(fd >= 0);
    struct stat sb;
    assert_int_equal(fstat(fd, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* back to blocking */
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    close(fd);
    /* opening again opens the same file */
    fd = gw_open_file(path, O_RDWR | O_CREAT, 0644, GW_OPEN_OWNED, why, sizeof why);
    assert_true(fd >= 0);
    close(fd);
    /* a second name (a hard link planted in a shared folder) is refused when owned is asked */
    path_of(hard, sizeof hard, "hard.lock");
    assert_int_equal(link(path, hard), 0);
    assert_int_equal(gw_open_file(hard, O_WRONLY, 0, GW_OPEN_OWNED, why, sizeof why), -1);
    assert_non_null(strstr(why, "hard link"));
    fd = gw_open_file(hard, O_RDONLY, 0, GW_OPEN_NOFOLLOW, why, sizeof why); /* only locking: fine */
    assert_true(fd >= 0);
    close(fd);
    if (geteuid() == 0) {
        /* a file of another user */
        char other[300];
        path_of(other, sizeof other, "other");
        write_text(other, "x");
        assert_int_equal(chown(other, 65534, 65534), 0);
        assert_int_equal(gw_open_file(other, O_WRONLY, 0, GW_OPEN_OWNED, why, sizeof why), -1);
        assert_non_null(strstr(why, "owned by uid 65534"));
    }
}

static void test_private_dir(void **st)
{
    (void)st;
    char p[300], why[300], target[300];
    path_of(p, sizeof p, "mine");
    assert_int_equal(gw_private_dir(p, why, sizeof why), 0);
    struct stat sb;
    assert_int_equal(lstat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    /* one of ours made 0755 by an older version is narrowed */
    assert_int_equal(chmod(p, 0755), 0);
    assert_int_equal(gw_private_dir(p, why, sizeof why), 0);
    assert_int_equal(lstat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    /* a link to a folder, or a file, is not a private folder */
    path_of(target, sizeof target, "elsewhere");
    assert_int_equal(mkdir(target, 0700), 0);
    path_of(p, sizeof p, "linked");
    assert_int_equal(symlink(target, p), 0);
    assert_int_equal(gw_private_dir(p, why, sizeof why), -1);
    assert_non_null(strstr(why, "not a real folder"));
    path_of(p, sizeof p, "file");
    write_text(p, "");
    assert_int_equal(gw_private_dir(p, why, sizeof why), -1);
    if (geteuid() == 0) {
        path_of(p, sizeof p, "theirs");
        assert_int_equal(mkdir(p, 0777), 0);
        assert_int_equal(chown(p, 65534, 65534), 0);
        assert_int_equal(gw_private_dir(p, why, sizeof why), -1);
        assert_non_null(strstr(why, "owned by uid 65534"));
    }
}

static void test_clean_text(void **st)
{
    (void)st;
    /* the comments line up and each split literal stays on its line */
    /* clang-format off */
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain text", "plain text"},
        {"\x1b]0;title\x07rest", "?]0;title?rest"}, /* OSC: ESC and BEL */
        {"\x1b[2J\x1b[31mred", "?[2J?[31mred"},     /* CSI */
        {"c1 \xc2\x9b"
         "31m",
         "c1 ?31m"}, /* U+009B: a CSI of its own */
        {"del\x7f", "del?"},
        {"tab\tnl\ncr\r", "tab?nl?cr?"},
        {"caf\xc3\xa9 92\xc2\xb0"
         "C",
         "caf\xc3\xa9 92\xc2\xb0"
         "C"}, /* UTF-8 kept */
        {"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"},
        {"bad \xff\xfe end", "bad ?? end"}, /* not UTF-8 */
        {"cut \xe6\x97", "cut ??"},         /* a character cut short */
        {"over \xc0\xaf", "over ??"},       /* an overlong form */
        {"surrogate \xed\xa0\x80", "surrogate ???"},
        {"", ""},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        assert_string_equal(gw_clean_text(buf), cases[i].out);
        assert_true(gw_text_is_clean(buf) || strchr(cases[i].out, '\t'));
    }
    assert_false(gw_text_is_clean("a\x1b"));
    assert_false(gw_text_is_clean("a\xff"));
    assert_true(gw_text_is_clean("a\tb \xc3\xa9"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fifo_and_devices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_and_owned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_dir, setup, teardown),
        cmocka_unit_test(test_clean_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
