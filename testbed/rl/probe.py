"""What a trained network does as it serves: one episode of a workload, the network's masked
argmax choosing (as the job serves it), and what it chose: the SLOs met, the batch sizes it
started, how many slots it inferred on a step, the pending requests where it inferred and the
work booked on the device it decided for. A curve says how much a network meets; this says how,
e.g. a network that starts every batch at one request and cannot hold the load.

    python3 testbed/rl/probe.py testbed/experiments/rl/scratch-explore-batch/seed-1/policy.krln
    python3 testbed/rl/probe.py --steps 12000 --seed 7 --env-args "--models 12 --rate 600 --slo-ms 12" FILE.krln ...
"""
import argparse
import collections
import os
import shlex
import sys

import numpy as np

import kairos_env as ke
import network_file
import train

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class Probe:
    """What one episode served: the counts at its end, and the choices on the way."""

    def __init__(self, answer, batches, infers_per_step, pending, booked):
        self.answer = answer
        self.batches = batches  # batch size -> batches started
        self.infers_per_step = infers_per_step  # slots inferred on in a step -> steps
        self.pending = pending  # the pending requests of each slot inferred on
        self.booked = booked  # the work booked on the deciding device at each step, ms

    def mean_batch(self):
        n = sum(self.batches.values())
        return float("nan") if n == 0 else sum(b * k for b, k in self.batches.items()) / n

    def report(self, name):
        a = self.answer
        lines = ["%s: %.2f %% of SLOs as served (met %d, late %d, dropped %d) over %d steps"
                 % (name, 100 * a.attainment(), a.ok, a.late, a.dropped, a.steps)]
        started = sum(self.batches.values())
        lines.append("  batches started: %d, by size %s, mean %.2f"
                     % (started, ", ".join("%d: %d" % (b, self.batches[b]) for b in sorted(self.batches)), self.mean_batch()))
        lines.append("  slots inferred on in a step: %s" % ", ".join("%d: %d" % (k, v) for k, v in sorted(self.infers_per_step.items())))
        if self.pending:
            lines.append("  pending where it inferred: mean %.2f; work booked at a step: mean %.2f ms, p90 %.2f ms"
                         % (np.mean(self.pending), np.mean(self.booked), np.percentile(self.booked, 90)))
        return "\n".join(lines)


def network(path):
    """An actor from a network file (.krln), with whichever of the trainer's inputs the file's are."""
    scale, _, cap, layers = network_file.read(path)
    inputs = train.inputs_of(scale, cap)
    if inputs is None:
        raise ValueError("%s: its inputs are none of the trainer's (%s)" % (path, ", ".join(train.INPUTS)))
    model = train.ActorCritic(layers[0][0].shape[0], inputs)
    train.load_actor(model, path)
    return model


def probe(model, env, steps, seed):
    """One episode of `steps` on `env` at `seed`, served as the job serves the network (train.test_episode)."""
    batches, per_step = collections.Counter(), collections.Counter()
    pending, booked = [], []

    def watch(answer, action):
        inferred = [slot for slot in range(ke.SLOTS) if action[2 * slot] == 1]
        for slot in inferred:
            batches[ke.BATCH_SIZES[action[2 * slot + 1]]] += 1
            pending.append(float(answer.state[2 * slot]))
        per_step[len(inferred)] += 1
        booked.append(float(answer.state[ke.STATE_SIZE - 1]))

    end = train.test_episode(env, train.Rollout(model, np.random.default_rng(0)), steps, seed, watch)
    return Probe(end, batches, per_step, pending, booked)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("networks", nargs="+", metavar="FILE.krln")
    p.add_argument("--env-command", default=os.path.join(ROOT, "bin", "kairos-lab") + " rl env",
                   help="serves the environment (default: bin/kairos-lab rl env)")
    p.add_argument("--env-args", default="", help="the workload, as train.py's (default: the thesis' training setup)")
    p.add_argument("--steps", type=int, default=12000, help="the episode's steps (default: %(default)s, as train.py's tests)")
    p.add_argument("--seed", type=int, default=7, help="the episode's seed (default: %(default)s)")
    args = p.parse_args(argv)
    if args.steps < 1:
        p.error("--steps must be at least 1, got %d" % args.steps)
    for path in args.networks:
        if not os.path.isfile(path):
            p.error("no network file %s" % path)
    env = ke.Env(shlex.split(args.env_command) + shlex.split(args.env_args))
    try:
        for path in args.networks:
            print(probe(network(path), env, args.steps, args.seed).report(path), flush=True)
    finally:
        env.close()


if __name__ == "__main__":
    sys.exit(main())
