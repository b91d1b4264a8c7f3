/* test_history_paths.c - where the history is kept by default: on gpusim (GPUSIM_SCENARIO, as --sim
 * sets it) a file of the scenario's own beside the real history, never the real history itself
 * (issue 21: an agent on --sim recorded into /var/lib/gpuwatch/history.db); scenario names of any
 * form become a safe file name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"

static void test_simulated_apart(void **state)
{
    (void)state;
    setenv("XDG_STATE_HOME", "/tmp/gw-state", 1);
    unsetenv("GPUSIM_SCENARIO");
    char real[4096], sim[4096];
    history_default_path(real, sizeof real);
    assert_non_null(strstr(real, "/history.db"));
    const struct {
        const char *scenario, *file;
    } cases[] = {
        {"/usr/share/gpuwatch/scenarios/demo-8gpu.yaml", "simulated/demo-8gpu.db"},
        {"tests/scenarios/run-topo.yaml", "simulated/run-topo.db"},
        {"my scenario (v2).yaml", "simulated/my_scenario__v2_.db"},
        {"../../etc/passwd", "simulated/passwd.db"},
        {"/x/.hidden.yaml", "simulated/scenario.db"},
        {"/x/..", "simulated/scenario.db"},
        {"dir/", "simulated/scenario.db"},
        {"a\nb\x1b[2J.yaml", "simulated/a_b__2J.db"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("GPUSIM_SCENARIO", cases[i].scenario, 1);
        history_default_path(sim, sizeof sim);
        assert_string_not_equal(sim, real);
        size_t dl = strlen(real) - strlen("history.db");
        assert_memory_equal(sim, real, dl); /* the same folder */
        assert_string_equal(sim + dl, cases[i].file);
    }
    unsetenv("GPUSIM_SCENARIO");
    history_default_path(sim, sizeof sim);
    assert_string_equal(sim, real);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_simulated_apart)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
