"""Environment steps per second through the pipe: K environment processes stepped together with
the thesis' urgent-slot working-point agent (the largest batch of the most urgent slot when the
device has under 5 ms booked), the actions chosen in numpy. Prints each run and the median.

    python3 testbed/rl/bench_pipe.py --envs 2 --steps 30000 --runs 3
"""
import argparse
import shlex
import statistics
import time

import numpy as np

import kairos_env as ke


def urgent(answer):
    a = np.zeros(ke.ACTION_SIZE, dtype=np.uint8)
    m = answer.mask
    if m[1] and answer.state[-1] < 5:
        a[0] = 1
        a[1] = max(k for k in range(len(ke.BATCH_SIZES)) if m[2 + k])
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-command", default="bin/kairos-lab rl env", help="command that serves the environment (default: %(default)s)")
    p.add_argument("--envs", type=int, default=2)
    p.add_argument("--steps", type=int, default=30000, help="steps per environment per run")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    envs = ke.Envs(shlex.split(args.env_command), args.envs)
    rates = []
    for run in range(args.runs + 1):
        answers = [envs.reset(i, args.steps, 100 + run * args.envs + i) for i in range(len(envs))]
        start = time.perf_counter()
        total = 0
        live = list(range(len(envs)))
        while live:
            got = envs.step([urgent(answers[i]) for i in live], live)
            for i, a in zip(live, got):
                answers[i] = a
            total += len(live)
            live = [i for i in live if not answers[i].done]
        s = time.perf_counter() - start
        if run == 0:
            continue  # warm-up: the JVM compiles as it goes
        rates.append(total / s)
        print("run %d: %d steps in %.2f s: %.0f steps/s" % (run, total, s, total / s), flush=True)
    print("median: %.0f steps/s over %d runs, %d environments" % (statistics.median(rates), args.runs, args.envs))
    envs.close()


if __name__ == "__main__":
    main()
