#!/usr/bin/env python3
"""A stand-in training loop for `gpuwatch run` examples and tests: prints a step line like the
usual trainers' ("step N/TOTAL ... loss X") every STEP seconds. No GPU work: under --sim the GPU
readings are the scenario's. Usage: train.py [STEPS] [STEP_SECONDS]"""
import sys
import time

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
step_s = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
for i in range(1, steps + 1):
    time.sleep(step_s)
    print("step %d/%d | loss %.3f" % (i, steps, 2.0 / (1 + i)), flush=True)
