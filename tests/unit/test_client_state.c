/* test_client_state.c - finding the running agent (agent_state.h) in a folder others may write to:
 * its state file is believed only from a regular file owned by us or root (a link, a FIFO, another
 * user's file are ignored, a FIFO without blocking), and it is written through a new file renamed
 * into place, never through a link left where it goes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent_state.h"

static char dir[64], state[128], target[128];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_state_file(void **st)
{
    (void)st;
    snprintf(dir, sizeof dir, "/tmp/gw-state-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("GPUWATCH_RUNTIME_DIR", dir, 1);
    snprintf(state, sizeof state, "%s/agent.state", dir);
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    char mine[128];
    snprintf(mine, sizeof mine, "pid=%d\nlisten=127.0.0.1:1234\ndb=/x.db\n", (int)getpid());

    agent_state s = {.pid = (int)getpid()};
    snprintf(s.listen, sizeof s.listen, "127.0.0.1:9999");
    const char *keys[] = {"db"}, *values[] = {"/tmp/h.db"};
    assert_int_equal(agent_state_write(&s, keys, values, 1), 0);
    agent_state got;
    assert_int_equal(agent_state_find(&got), 1);
    assert_int_equal(got.pid, (int)getpid());
    assert_string_equal(got.db, "/tmp/h.db");

    /* a link planted as the state file, to a file that looks right: ignored */
    unlink(state);
    put(target, mine);
    assert_int_equal(symlink(target, state), 0);
    assert_int_equal(agent_state_find(&got), 0);
    /* written anyway: the link is replaced, its target untouched */
    assert_int_equal(agent_state_write(&s, keys, values, 1), 0);
    struct stat sb;
    assert_int_equal(lstat(state, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    FILE *f = fopen(target, "r");
    char text[256] = "";
    assert_int_equal(fread(text, 1, sizeof text - 1, f) > 0, 1);
    fclose(f);
    assert_string_equal(text, mine);

    /* a FIFO: ignored, without blocking */
    unlink(state);
    assert_int_equal(mkfifo(state, 0644), 0);
    assert_int_equal(agent_state_find(&got), 0);

    /* another user's file (root only can make one) */
    unlink(state);
    put(state, mine);
    if (geteuid() == 0) {
        assert_int_equal(chown(state, 65534, 65534), 0);
        assert_int_equal(agent_state_find(&got), 0);
    }
    unlink(state);
    unlink(target);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_state_file)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
