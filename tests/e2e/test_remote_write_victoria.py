"""test_remote_write_victoria.py - the agent pushes 8 simulated GPUs to a real VictoriaMetrics
(/api/v1/write, Remote-Write 1.0).

1. A minute's worth of samples (60 per series, sampled every 250 ms): VictoriaMetrics' export API
   then returns every sample of every native and dcgm series the agent's history holds, with the
   same value at the same millisecond.
2. An outage of 40 readings with a queue that holds only about 9 s of samples: the queue
   overwrites what the receiver has not taken, and the agent resends it from the history once the
   receiver is back; afterwards it holds at least 99.9 % of the outage's samples."""
import os
import tempfile
import time
from agentlib import Agent, check, need_gpusim, scenario, wait_for
import rwlib
from skiplib import need_command

need_gpusim()
need_command("victoria-metrics", "victoria-metrics")

tmp = tempfile.TemporaryDirectory(prefix="gw-rw-vm-")
db = os.path.join(tmp.name, "history.db")
vm = rwlib.Victoria(tmp.name)
config = """interval: 250ms
history: {flush_interval: 1s}
remote_write:
  queue_capacity: 30000
  endpoints:
    - url: %s
      name: vm
      protocol: "1.0"
      queue_config: {batch_send_deadline: 500ms, min_backoff: 50ms, max_backoff: 1s}
""" % vm.url
a = None


def value(name, **labels):
    return rwlib.agent_value(a, name, **labels)


try:
    cat = rwlib.catalog()
    a = Agent(scenario("rw_8gpu.yaml"), config, args=["--db", db])
    a.wait_sampled(ngpus=8)
    t0 = time.time()
    wait_for("60 readings", lambda: rwlib.readings_since(a, t0) >= 60, timeout=120, step=0.25)
    t1 = time.time()
    wait_for("the receiver to take them", lambda: rwlib.delivered(a, "vm", t1), timeout=60, step=0.25)
    wait_for("the history file to hold them", lambda: rwlib.history_values(db, ["temperature.gpu"], t1 - 1, t1 + 5)
             .get(("temperature.gpu", 0)), timeout=60, step=0.5)
    for which, total, found, bad in rwlib.compare_store(vm, db, cat, '{job="gpuwatch"}', t0, t1, need=8 * 20 * 55)[0]:
        print("part 1: %s: %d of %d samples" % (which, found, total))
        check(found == total, "%s: %d of %d history samples in VictoriaMetrics with the same value; e.g. %s"
              % (which, found, total, "; ".join(bad)))

    out0 = time.time()
    vm.stop()
    wait_for("the agent to retry", lambda: value("gpuwatch_remote_write_queue_state", remote_name="vm",
                                                 state="retrying") == 1, timeout=60, step=0.25)
    wait_for("40 readings of the outage", lambda: rwlib.readings_since(a, out0) >= 40, timeout=120, step=0.25)
    out1 = time.time()
    vm.start()
    rwlib.wait_caught_up(a, "vm", out1 + 1)
    check(value("gpuwatch_remote_write_samples_resent_total", remote_name="vm") > 0, "nothing resent from the history")
    check(value("gpuwatch_remote_write_samples_dropped_total", remote_name="vm") == 0, "samples dropped")
    a.stop()
    a = None
    for which, total, found, bad in rwlib.compare_store(vm, db, cat, '{job="gpuwatch"}', out0, out1, need=8 * 20 * 35)[0]:
        share = found / total
        print("part 2: %s: %d of %d outage samples (%.4f %%)" % (which, found, total, 100 * share))
        check(share >= 0.999, "%s: %d of %d outage samples; e.g. %s" % (which, found, total, "; ".join(bad)))
    print("OK")
finally:
    if a and a.proc.poll() is None:
        a.proc.kill()
        a.proc.wait()
    vm.stop()
    tmp.cleanup()
