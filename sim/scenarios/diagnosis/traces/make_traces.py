#!/usr/bin/env python3
"""make_traces.py - writes the CSV activity traces some diagnosis scenarios read (csv generator):
training steps whose durations vary from step to step, which gpusim's square wave cannot do. Each
trace is a seeded random draw, so running this again writes the same files. A column is the
instantaneous activity (0..100) of a kernel running or not; gpusim averages it over the GPU's NVML
sample period. Edges are two rows 1 ms apart (the csv generator interpolates linearly).

    python3 make_traces.py        # rewrites the .csv files beside this script
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def stall_trace(rng, duration, busy_mean, busy_sd, gap_median, gap_sigma, level, idle_level=0.0):
    """Steps of busy_mean +- busy_sd seconds at `level`, each followed by a wait for the next
    batch drawn from a lognormal (median gap_median, shape gap_sigma): a data loader that is
    slower than the GPU. Returns [(t, value)]."""
    pts = [(0.0, level)]
    t = 0.0
    while t < duration:
        busy = max(0.2, rng.gauss(busy_mean, busy_sd))
        gap = gap_median * math.exp(rng.gauss(0, gap_sigma))
        t += busy
        pts += [(t, level), (t + 0.001, idle_level)]
        t += gap
        pts += [(t, idle_level), (t + 0.001, level)]
    return pts


def write(name, column, pts, duration):
    """One activity column; times rounded to the millisecond."""
    with open(os.path.join(HERE, name), "w") as f:
        f.write("t,%s\n" % column)
        last = -1.0
        for t, v in pts:
            t = round(t, 3)
            if t <= last or t > duration:
                continue
            f.write("%g,%g\n" % (t, v))
            last = t


def main():
    # video_stall.csv: a video model on 2 x H200 decoding clips on the CPU; the two ranks step
    # together (DDP), so both GPUs read the same column. ~11 s of compute, ~7 s waits.
    rng = random.Random(2024_1)
    write("video_stall.csv", "sm", stall_trace(rng, 3700, 11.0, 0.7, 7.2, 0.18, 93), 3700)
    # l4_nfs_stall.csv: fine-tuning on one L4 reading shards from NFS: 1.8 s steps, ~2.9 s waits
    # with a long tail (network file system latency).
    rng = random.Random(2024_2)
    write("l4_nfs_stall.csv", "sm", stall_trace(rng, 3700, 1.8, 0.08, 2.7, 0.35, 98, 1), 3700)
    # s3_stream_stall.csv: a DDP job on 2 x A100 streams WebDataset shards from object storage: 3.1 s
    # steps, waits of ~2.4 s whose latency varies a lot (shard fetches over the network).
    rng = random.Random(2024_5)
    write("s3_stream_stall.csv", "sm", stall_trace(rng, 3700, 3.1, 0.12, 2.4, 0.45, 97, 2), 3700)
    # rank0_leak.csv: DDP rank 0 keeps gathered validation outputs on the GPU: after 150 s of
    # loading (to 33.8 GB) it grows ~130 MiB/min, in 64 MiB allocator blocks.
    rng = random.Random(2024_3)
    write("rank0_leak.csv", "mem", leak_trace(rng, 90, 150, 33800, 130, 64, 3700), 3700)
    # server_leak.csv: an inference server running since before the window (no loading phase)
    # keeps per-request tensors: ~90 MiB/min in 20 MiB blocks from 21.5 GB.
    rng = random.Random(2024_4)
    write("server_leak.csv", "mem", leak_trace(rng, 0, 0.001, 21500, 90, 20, 3700)[1:], 3700)


def leak_trace(rng, start, load_s, base, rate_per_min, block, duration):
    """A process that loads for load_s (memory rising to base), then leaks: the caching allocator
    takes another `block` MiB whenever the tensors kept so far outgrow what it holds, i.e. every
    block / rate minutes on average, a little earlier or later each time. Returns [(t, MiB)]."""
    pts = [(start, 0.0), (start + load_s, base)]
    t, mem = start + load_s, base
    mean_gap = block / rate_per_min * 60.0
    while t < duration:
        t += mean_gap * rng.uniform(0.6, 1.4)
        pts += [(t, mem), (t + 0.001, mem + block)]
        mem += block
    return pts


if __name__ == "__main__":
    main()
