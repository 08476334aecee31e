"""Masked PPO for the learned scheduler, on torch alone, against the Java environment over a pipe.

The RL thesis' training (its sections 3.6, 4.4, 5.2): episodes of 3,000 steps whose length doubles
every other episode up to 60,000, on its workload by default (2,400 requests/s over 48 ResNet50
instances, SLO 24 ms, 6 devices, reward RF3). Several environment processes run side by side
(--envs), each taking the next episode of the schedule when its own ends. The actor's logits are
masked (a forbidden choice gets -1e9 before the softmax), per slot a null/infer choice and, for an
infer, a batch size; the masked distribution, GAE and the PPO update are ppo.py's. After every
episode the network is written (--out/policy.krln, the format network_file.py describes) with the
episode's attainment in --out/training.csv, and as --out/best.krln when no episode before met
more; the learning rate falls linearly to 0 over the schedule's steps (--lr-schedule); at the end also an ONNX export (policy.onnx) when
torch's exporter works here. With --test-steps, after every episode the network is also tested as it
serves (its masked argmax), the thesis' curves, and the curve's row gets the test's attainment.

    python3 testbed/rl/train.py --episodes 20 --out testbed/experiments/rl/train
"""
import argparse
import csv
import math
import os
import shlex
import sys
import time

import numpy as np
import torch
import torch.nn as nn

import kairos_env as ke
import network_file
import ppo

NULL_BIAS = 3.0

# What the first layer sees of the state: min(state, cap) * scale (--inputs).
#  capped (the default): pending counts capped at 64 and / 16 (the largest batch); laxities and
#   booked work capped at 100 ms and in tens of ms: 1 ms is 0.1, and a padding slot's 1,000 ms
#   laxity is 10, as a queue with 100 ms to spare.
#  plain (the networks trained before the cap): laxities in hundreds of ms, uncapped, so that the
#   padding's 10 dwarfs the real laxities' 0 to 1: a network so fed told slots apart by whether
#   they were padding, and barely by how urgent they were.
INPUTS = {
    "capped": (np.array([1 / 16, 1 / 10] * ke.SLOTS + [1 / 10], dtype=np.float32),
               np.array([64, 100] * ke.SLOTS + [100], dtype=np.float32)),
    "plain": (np.array([1 / 16, 1 / 100] * ke.SLOTS + [1 / 10], dtype=np.float32), None),
}

# What the critic alone may also see (--critic-workload): the episode's workload, which a scheduler
# in service is not told, so the actor never sees it. Scaled to 0..1 over the low-SLO sweep's
# points: models / 48, log2(rate / 600) / 2, log2(SLO / 6 ms) / 4.
WORKLOAD_SIZE = 3


def workload_features(models, rate, slo_ms):
    return np.array([models / 48, math.log2(rate / 600) / 2, math.log2(slo_ms / 6) / 4], dtype=np.float32)


def workload_cells(workload):
    """An episode's workload (the environment's answer to 'W') as training.csv's models, rate and slo_ms."""
    return ["%g" % v for v in workload]


# The action as ppo.py's MultiDiscrete heads: per slot null/infer, then the batch size; the order
# of the environment's action (24 values) and of its mask (84 flags, 2 + 5 per slot).
HEADS = (2, len(ke.BATCH_SIZES)) * ke.SLOTS


def slot_sum(per_head, infer):
    """Per row, a per-head quantity summed: the null/infer heads', and the batch-size heads' only
    where their slot infers (elsewhere the batch size is moot). Numpy or torch."""
    return per_head[..., 0::2].sum(-1) + (per_head[..., 1::2] * infer).sum(-1)


class SlotDistribution(ppo.MultiCategorical):
    """The masked heads, with an action's log probability counting a batch size only where its
    slot infers, and the batch sizes' entropy at half weight."""

    def __init__(self, logits, mask):
        super().__init__(logits, mask, HEADS)

    def log_prob(self, actions):
        return slot_sum(self.head_log_prob(actions), actions[..., 0::2].to(self.log_probs.dtype))

    def entropy(self):
        e = self.head_entropy()
        return e[..., 0::2].sum(-1) + 0.5 * e[..., 1::2].sum(-1)


class ActorCritic(nn.Module):
    """The actor sees the state (what the first layers see of it: features); the critic too, and
    with workload=True the episode's workload after it (an observation of STATE_SIZE +
    WORKLOAD_SIZE values, of which the actor reads the first STATE_SIZE). With every workload's
    returns on one scale, a critic blind to the workload is a baseline wrong by each workload's
    mean: an advantage then credits an action with its workload's luck."""

    def __init__(self, hidden, inputs="capped", workload=False, null_bias=NULL_BIAS):
        super().__init__()
        scale, cap = INPUTS[inputs]
        self.inputs = inputs
        self.workload = workload
        # Copies: a checkpoint loaded into the buffers (--init) must not write through to INPUTS.
        self.register_buffer("scale", torch.tensor(scale))
        self.register_buffer("cap", torch.tensor(cap if cap is not None else np.full_like(scale, np.inf)))
        self.actor = nn.Sequential(nn.Linear(ke.STATE_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                   nn.Linear(hidden, ke.MASK_SIZE))
        critic_inputs = ke.STATE_SIZE + (WORKLOAD_SIZE if workload else 0)
        self.critic = nn.Sequential(nn.Linear(critic_inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        # A small last layer: the first policy is near uniform over the allowed batch sizes, and
        # leans to null (logit +NULL_BIAS): a uniform one infers on half of the 12 slots at every
        # step, books seconds of work at once, and learns little from the wreck.
        nn.init.orthogonal_(self.actor[-1].weight, 0.01)
        with torch.no_grad():
            self.actor[-1].bias.zero_()
            self.actor[-1].bias.view(ke.SLOTS, ke.CHOICES)[:, 0] = null_bias

    def features(self, state):
        """What the first layers see (INPUTS)."""
        return torch.minimum(state, self.cap) * self.scale

    def forward(self, obs):
        x = self.features(obs[..., :ke.STATE_SIZE])
        seen = torch.cat([x, obs[..., ke.STATE_SIZE:]], -1) if self.workload else x
        return self.actor(x), self.critic(seen).squeeze(-1)


def load_checkpoint(model, path):
    """A checkpoint (policy.pt) into the model; one whose critic saw the state alone starts a
    critic that also sees the workload with those inputs' weights at 0, so that it first values
    every state as before."""
    state = torch.load(path)
    first = "critic.0.weight"
    want = model.critic[0].weight.shape
    if state[first].shape != want and state[first].shape == (want[0], ke.STATE_SIZE):
        state[first] = torch.cat([state[first], torch.zeros(want[0], want[1] - ke.STATE_SIZE)], 1)
    model.load_state_dict(state)


def same_inputs(scale, cap, other_scale, other_cap):
    """Whether two first layers see the state alike: the same scale and the same cap (inf: none)."""
    return np.allclose(scale, other_scale) and np.array_equal(cap, other_cap)


def inputs_of(scale, cap):
    """The trainer's inputs (a key of INPUTS) that a network file's scale and cap are, or None."""
    for name, (s, c) in INPUTS.items():
        if same_inputs(scale, cap, s, np.full_like(s, np.inf) if c is None else c):
            return name
    return None


def load_actor(model, path):
    """The actor's weights from a network file (the critic is left as it is: --value-warmup fits it)."""
    scale, offset, cap, layers = network_file.read(path)
    if not same_inputs(scale, cap, model.scale.numpy(), model.cap.numpy()) or np.any(offset != 0):
        raise ValueError("%s: its inputs are not the trainer's --inputs %s" % (path, model.inputs))
    linears = [l for l in model.actor if isinstance(l, nn.Linear)]
    if len(layers) != len(linears) or any(w.shape != tuple(l.weight.shape) for (w, _, _), l in zip(layers, linears)):
        raise ValueError("%s: its layers are not %d-%d-%d-%d" % (path, ke.STATE_SIZE, linears[0].out_features, linears[1].out_features, ke.MASK_SIZE))
    with torch.no_grad():
        for (w, b, _), l in zip(layers, linears):
            l.weight.copy_(torch.from_numpy(w.copy()))
            l.bias.copy_(torch.from_numpy(b.copy()))


class Rollout:
    """The model's actor and critic in numpy, for choosing actions while the environments run: a
    torch call per step costs milliseconds of fixed overhead, these few matrix products far less."""

    def __init__(self, model, rng, explore=0.0, temperature=1.0, explore_batch=0.0):
        get = lambda seq: [(l.weight.detach().numpy().copy(), l.bias.detach().numpy().copy()) for l in seq if isinstance(l, nn.Linear)]
        self.actor = get(model.actor)
        self.critic = get(model.critic)
        self.scale = model.scale.numpy().copy()
        self.cap = model.cap.numpy().copy()
        self.workload = model.workload
        self.rng = rng
        # By default only the null/infer heads explore: what a network may rule out and need to
        # try again is whether to infer (on a lone queue, say); a batch size drawn at random,
        # learnt as the policy's own at every busy slot, teaches a network that batches to batch
        # less. explore_batch is for the opposite trap, a network that has ruled out every batch
        # larger than one request (a training seed that then cannot hold the load): its
        # batch-size heads draw uniformly among the allowed sizes.
        self.explore = np.array([explore, explore_batch] * ke.SLOTS)
        self.temperature = temperature

    def features(self, s):
        return np.minimum(s[:, :ke.STATE_SIZE], self.cap) * self.scale

    def critic_sees(self, s, x):
        return np.concatenate([x, s[:, ke.STATE_SIZE:]], 1) if self.workload else x

    @staticmethod
    def _mlp(layers, x):
        for j, (w, b) in enumerate(layers):
            x = x @ w.T + b
            if j < len(layers) - 1:
                x = np.tanh(x)
        return x

    def value(self, s):
        return self._mlp(self.critic, self.critic_sees(s, self.features(s)))[:, 0]

    def serve(self, s, m):
        """The actions the network serves (the masked argmax per head, as NetworkAgent chooses)."""
        return ppo.np_log_softmax(self._mlp(self.actor, self.features(s)), m, HEADS).argmax(-1)

    def act(self, s, m):
        """For observations s (states, with the workload after them where the critic sees it):
        sampled actions (rows of 24: per slot null/infer and batch size), their log
        probability (SlotDistribution's of the logits over the temperature; the policy's own,
        also where a head explored), and the states' values."""
        x = self.features(s)
        lp = ppo.np_log_softmax(self._mlp(self.actor, x) / self.temperature, m, HEADS)
        a = ppo.np_sample(lp, self.rng, self.explore)
        return a, slot_sum(ppo.np_take(lp, a), a[:, 0::2]), self._mlp(self.critic, self.critic_sees(s, x))[:, 0]


def test_episode(env, roll, steps, seed, watch=None):
    """One episode of `steps` on `env` (a kairos_env.Env) at `seed`, served as the network is (roll.serve):
    its last answer, with the episode's counts. The thesis' curves are such tests: 'after each
    episode, the agent is tested on the same training workload'. With `watch`, each step's
    answer and the action served for it go to watch(answer, action) first (probe.py's counts)."""
    a = env.reset(steps, seed)
    while not a.done:
        action = roll.serve(a.state[None, :], a.mask[None, :])[0].astype(np.uint8)
        if watch is not None:
            watch(a, action)
        a = env.step(action)
    return a


def urgent_action(state, mask):
    """The working-point rule the network may first imitate (--imitate): when the device has under
    5 ms booked, the most urgent slot's largest allowed batch; otherwise wait. Clockwork's idea
    (earliest deadline first, largest batch, a few ms booked ahead) in the thesis' action space.
    The action's 24 values, per slot null/infer and batch size."""
    action = np.zeros(ke.ACTION_SIZE, np.int64)
    if mask[1] and state[-1] < 5:
        action[0] = 1
        action[1] = max(k for k in range(len(ke.BATCH_SIZES)) if mask[2 + k])
    return action


def imitate(model, opt, envs, steps, args, writer, log, started):
    """Behaviour cloning of urgent_action on the states it meets, and the critic fitted to its
    discounted returns: a start for PPO where the thesis' reward alone learns slowly."""
    k = len(envs)
    workloads = [envs.workload(i, 900_000 + i) for i in range(k)]
    answers = [envs.reset(i, steps, 900_000 + i) for i in range(k)]
    S, M, A, R, D = [], [], [], [], []
    live = list(range(k))
    while live:
        acts, rows = [], []
        for i in live:
            a = answers[i]
            act = urgent_action(a.state, a.mask)
            acts.append(act.astype(np.uint8))
            rows.append((a.state, a.mask, act))
        got = envs.step(acts, live)
        for i, (st, ma, act), a in zip(live, rows, got):
            S.append(st); M.append(ma); A.append(act); R.append(a.reward * args.reward_scale); D.append(a.done)
            answers[i] = a
            if a.done:
                writer.writerow([0, a.steps, "%.5f" % a.attainment(), "%.1f" % a.total, a.ok, a.late, a.dropped, "%.0f" % (time.time() - started)]
                                + workload_cells(workloads[i]) + [""])
                log.flush()
                print("imitation rollout: %d steps, attainment %.2f %%" % (a.steps, 100 * a.attainment()), flush=True)
        live = [i for i in live if not answers[i].done]
    # Returns per environment: the rows of one environment are every k-th while all run; simpler and
    # close enough, a return per row over the rows that follow it in its own environment's order.
    S = torch.from_numpy(np.stack(S)); M = torch.from_numpy(np.stack(M)); A = torch.from_numpy(np.stack(A))
    R = np.array(R, np.float32); D = np.array(D)
    ret = np.zeros_like(R)
    acc = np.zeros(k, np.float32)
    for t in reversed(range(len(R))):
        i = t % k
        acc[i] = R[t] + args.gamma * acc[i] * (0.0 if D[t] else 1.0)
        ret[t] = acc[i]
    ret = torch.from_numpy(ret)
    n = len(R)
    for group in opt.param_groups:
        group["lr"] = args.imitate_lr
    for epoch in range(args.imitate_epochs):
        order = torch.randperm(n)
        total = 0.0
        for j in range(0, n, args.minibatch):
            idx = order[j:j + args.minibatch]
            logits, v = model(S[idx])
            lp = SlotDistribution(logits, M[idx]).log_prob(A[idx])
            loss = -lp.mean() + 0.5 * ((v - ret[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            total += float(-lp.mean()) * len(idx)
        with torch.no_grad():
            mode = SlotDistribution(model(S)[0], M).mode()
            infer = A[:, 0::2]
            same = ((mode[:, 0::2] == infer).all(-1) & ((mode[:, 1::2] == A[:, 1::2]) | (infer == 0)).all(-1)).float().mean()
        print("imitation epoch %d: mean -log p %.4f, argmax agrees with the rule on %.2f %% of steps" % (epoch + 1, total / n, 100 * float(same)), flush=True)


def update(model, opt, batch, args, warming=False, temperature=1.0):
    """PPO's epochs over one rollout (a ppo.Batch): ppo.update with the trainer's settings, and
    the actor's and the critic's gradients clipped apart (a critic far off, with returns of a
    backlog in the thousands, would otherwise shrink the actor's gradient to nothing). The policy
    is the actor's logits over `temperature`, as the rollout sampled it. While warming, the
    critic's loss alone. Returns ppo.update's statistics."""
    cfg = ppo.Config(clip=args.clip, entropy_coef=args.entropy, value_coef=0.5, epochs=args.epochs,
                     minibatch=args.minibatch, max_grad_norm=0.5, target_kl=args.target_kl or None)
    groups = [list(model.actor.parameters()), list(model.critic.parameters())]
    distribution = SlotDistribution if temperature == 1.0 else lambda logits, mask: SlotDistribution(logits / temperature, mask)
    return ppo.update(model, opt, batch, cfg, distribution, value_only=warming, clip_groups=groups)


def episode_length(e, first=3000, longest=60000):
    """Episode e's steps (from 0): the thesis' 3,000 doubling every other episode, at most 60,000
    (`longest`: across workloads, shorter episodes draw more of them for the same steps)."""
    return min(first * 2 ** (e // 2), longest)


def temperature(steps_done, start, stop, end):
    """The policy's temperature before the next rollout under --sharpen END: 1 until `start` steps
    of the schedule are taken, then falling linearly to END at `stop`, END after. The job serves
    the argmax, which no temperature changes; PPO optimises the policy it samples. At 1 the two
    part where a slot infers with probability under a half (a random timer: sampled, it infers now
    and then; served, never). Sharpened, the sampled policy is the served one by the end, and what
    PPO learns last is what the argmax does."""
    if steps_done <= start:
        return 1.0 if stop > start else end
    return 1.0 - (1.0 - end) * min(1.0, (steps_done - start) / (stop - start))


def schedule_steps(episodes, first=3000, longest=60000):
    """The steps of the schedule's first `episodes` episodes, all environments together."""
    return sum(episode_length(e, first, longest) for e in range(episodes))


def lr_fraction(steps_done, total_steps, schedule):
    """The learning rate's share of --lr before the next update: 1 throughout under 'constant';
    under 'linear' (PPO's annealing, as in its paper's Atari runs), falling from 1 to 0 with the
    steps of the schedule taken, so that late updates, on a policy near its best, move it less."""
    if schedule == "constant" or total_steps <= 0:
        return 1.0
    return max(0.0, 1.0 - steps_done / total_steps)


def export(model, out, name="policy.krln"):
    a = model.actor
    layers = [(a[0].weight.detach().numpy(), a[0].bias.detach().numpy(), "tanh"),
              (a[2].weight.detach().numpy(), a[2].bias.detach().numpy(), "tanh"),
              (a[4].weight.detach().numpy(), a[4].bias.detach().numpy(), "none")]
    tmp = os.path.join(out, name + ".tmp")
    # The version follows the inputs the model was fed (its buffers, which a --init checkpoint
    # brings): uncapped is version 1, whose reader has no cap, not a version 2 of infinite caps.
    scale = model.scale.numpy()
    cap = model.cap.numpy()
    network_file.write(tmp, scale, np.zeros_like(scale), layers, cap if np.isfinite(cap).all() else None)
    os.replace(tmp, os.path.join(out, name))


def export_onnx(model, out):
    class Logits(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, state):
            return self.m.actor(self.m.features(state))

    try:
        torch.onnx.export(Logits(model), torch.zeros(1, ke.STATE_SIZE), os.path.join(out, "policy.onnx"),
                          input_names=["state"], output_names=["logits"], dynamic_axes={"state": {0: "n"}, "logits": {0: "n"}})
        return True
    except Exception as e:  # the exporter needs the onnx package, which may be missing
        print("ONNX export skipped: %s" % e, file=sys.stderr)
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-command", default="bin/kairos-lab rl env", help="serves the environment (default: %(default)s)")
    p.add_argument("--env-args", default="", help="more arguments for it, e.g. '--rate 1200 --models 12 --reward rf2'")
    p.add_argument("--late-charge", choices=["at_start", "at_fate"], default="at_start",
                   help="when a request that ends late pays its correction: in the step that starts its batch, predicted late "
                        "(default), or when it ends, dozens of steps later in another device's step (the thesis'); "
                        "the environment's --late-charge")
    p.add_argument("--drop-charge", choices=["at_seal", "at_fate"], default="at_seal",
                   help="when a request the group drops pays its correction: in the step whose booking left it no device in time "
                        "(default), or when it is dropped, in whichever step comes next (the thesis'); the environment's --drop-charge")
    p.add_argument("--gpu-term", type=float,
                   help="RF3's GPU term, per ms of work booked on the device after a step (default: the environment's, 0.5; at "
                        "0.1, with which every network before it was trained, booking ahead one request at a time paid behind "
                        "a backlog past the SLO, and on the thesis' setup a training seed of three stays below 99 %%); "
                        "the environment's --gpu-term")
    p.add_argument("--envs", type=int, default=4, help="environment processes (default: %(default)s)")
    p.add_argument("--episodes", type=int, default=20, help="episodes of the schedule in all (default: %(default)s)")
    p.add_argument("--episode-steps", type=int, default=3000, help="the first episode's steps, doubling every other one (default: %(default)s, the thesis')")
    p.add_argument("--longest-episode", type=int, default=60000,
                   help="the steps at which episodes stop doubling (default: %(default)s, the thesis'); across workloads a shorter one "
                        "draws more workloads for the same steps")
    p.add_argument("--minutes", type=float, default=30, help="stop after this wall time, network kept (default: %(default)s)")
    p.add_argument("--rollout", type=int, default=1024, help="steps per environment between updates (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=512)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--lr-schedule", choices=["linear", "constant"], default="linear",
                   help="the learning rate falls linearly to 0 over the schedule's steps (default), or stays at --lr")
    p.add_argument("--critic-lr", type=float, help="the critic's learning rate (default: --lr); a critic started fresh under a tuned actor needs a larger one")
    p.add_argument("--gamma", type=float, default=0.995, help="per step; 6 devices take 6 steps per ms (default: %(default)s)")
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--entropy", type=float, default=0.0, help="entropy bonus; above 0 it pulls every slot toward infer half the time (default: %(default)s)")
    p.add_argument("--explore", type=float, default=0.0,
                   help="per slot and step, the chance of a uniform draw between null and infer, learnt from as the "
                        "policy's own (ppo.np_sample says why), on the null/infer choices only: a network that has all but ruled out "
                        "inferring (on a lone queue, say) tries it again; it falls with the learning rate (--lr-schedule) (default: %(default)s, never)")
    p.add_argument("--explore-batch", type=float, default=0.0,
                   help="as --explore, for the batch size: per inferring slot and step, the chance of a uniform draw among "
                        "the allowed sizes; a network that has ruled out every batch larger than one tries them again; it falls "
                        "with the learning rate (default: %(default)s, never)")
    p.add_argument("--sharpen", type=float, default=1.0, metavar="END",
                   help="the policy's temperature falls from 1 to END over the schedule (or over its last --sharpen-episodes), "
                        "so that what PPO samples becomes what the job serves, the argmax (default: %(default)s, no sharpening)")
    p.add_argument("--sharpen-episodes", type=int, default=0, metavar="N",
                   help="sharpen over the schedule's last N episodes only, at --sharpen-lr; the learning rate's schedule "
                        "and exploration run over the episodes before (default: %(default)s, over the whole schedule)")
    p.add_argument("--sharpen-lr", type=float, default=1e-4, help="the learning rate while sharpening over the last episodes; the critic's, where --critic-lr sets its own, in the same proportion (default: %(default)s)")
    p.add_argument("--reward-scale", type=float, default=0.1)
    p.add_argument("--reward-norm", action="store_true",
                   help="divide the rewards by the running standard deviation of the discounted return (ppo.RewardScale), "
                        "so the critic's targets keep one scale however the returns grow (default: --reward-scale alone)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--null-bias", type=float, default=NULL_BIAS,
                   help="a fresh actor's lean to null, a logit added to each slot's null choice: at 3 a slot infers with "
                        "probability 0.047 per step; at 0 the first policy is uniform, the thesis' start (default: %(default)s)")
    p.add_argument("--inputs", choices=sorted(INPUTS), default="capped",
                   help="what the network sees of the state: laxities capped at 100 ms in tens of ms (default), or "
                        "'plain', uncapped in hundreds of ms, as the networks trained before the cap (and the clone) were")
    p.add_argument("--critic-workload", action="store_true",
                   help="the critic also sees each episode's workload (models, rate, SLO; the environment's answer to 'W'), the actor "
                        "not: across workloads, a baseline that knows each one's returns (default: the critic sees the state alone)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--init", help="a checkpoint (policy.pt) to continue from")
    p.add_argument("--init-network", help="a network file (.krln) whose weights start the actor; the critic starts fresh")
    p.add_argument("--value-warmup", type=int, default=0,
                   help="the first this many rollouts update the critic only, so that a started actor is not moved by a critic that knows nothing (default: %(default)s)")
    p.add_argument("--target-kl", type=float, default=0.0,
                   help="stop an update's epochs once the mean KL from the rollout's policy passes this (default: %(default)s, never)")
    p.add_argument("--imitate", type=int, default=0, help="first clone the urgent-slot rule over this many steps per environment (default: %(default)s, none)")
    p.add_argument("--imitate-epochs", type=int, default=40)
    p.add_argument("--imitate-lr", type=float, default=1e-3)
    p.add_argument("--test-steps", type=int, default=0,
                   help="after every episode, test the network as it serves (the masked argmax) for an episode of this many steps "
                        "on the training workload, at one seed throughout, and write its attainment as the curve's test_attainment: "
                        "the thesis' curves; a training episode's own attainment is of the sampled policy, on episodes whose length "
                        "doubles (default: %(default)s, no test)")
    p.add_argument("--out", default="testbed/experiments/rl/train")
    args = p.parse_args()
    if args.critic_workload and args.imitate:
        p.error("--imitate fits the critic on the state alone: it does not go with --critic-workload")
    for name in ("explore", "explore_batch"):
        if not 0 <= getattr(args, name) <= 1:
            p.error("--%s must be a probability in [0, 1], got %g" % (name.replace("_", "-"), getattr(args, name)))
    if not 0 < args.sharpen <= 1:
        p.error("--sharpen must be a temperature in (0, 1], got %g" % args.sharpen)
    if not 0 <= args.sharpen_episodes < max(args.episodes, 1) or (args.sharpen_episodes and args.sharpen == 1):
        p.error("--sharpen-episodes must leave episodes before it, and goes with a --sharpen under 1")

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    model = ActorCritic(args.hidden, args.inputs, args.critic_workload, args.null_bias)
    if args.init:
        load_checkpoint(model, args.init)
    if args.init_network:
        load_actor(model, args.init_network)
    critic_lr = args.critic_lr if args.critic_lr is not None else args.lr
    opt = torch.optim.Adam([{"params": model.actor.parameters(), "lr": args.lr, "base": args.lr},
                            {"params": model.critic.parameters(), "lr": critic_lr, "base": critic_lr}], eps=1e-5)
    command = shlex.split(args.env_command) + ["--late-charge", args.late_charge, "--drop-charge", args.drop_charge]
    if args.gpu_term is not None:
        command += ["--gpu-term", str(args.gpu_term)]  # else the environment's own default: one constant, in Reward
    command += shlex.split(args.env_args)
    envs = ke.Envs(command, args.envs)
    k = len(envs)
    started = time.time()
    log = open(os.path.join(args.out, "training.csv"), "w", newline="")
    writer = csv.writer(log)
    writer.writerow(["episode", "steps", "attainment", "reward", "ok", "late", "dropped", "wall_s", "models", "rate", "slo_ms", "test_attainment"])
    tester = ke.Env(command) if args.test_steps > 0 else None
    scaler = ppo.RewardScale(k, args.gamma) if args.reward_norm else None

    if args.imitate > 0:
        imitate(model, opt, envs, args.imitate, args, writer, log, started)
        export(model, args.out)
        torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
        for group in opt.param_groups:
            group["lr"] = group["base"]
    next_episode = 0
    episode_of = [None] * k
    answers = [None] * k
    # What the critic sees of each environment's episode besides its state (nothing by default).
    seen = np.zeros((k, WORKLOAD_SIZE if args.critic_workload else 0), np.float32)
    workload_of = [None] * k

    def start(i):
        nonlocal next_episode
        episode_of[i] = next_episode
        seed = args.seed * 1000 + next_episode
        workload_of[i] = envs.workload(i, seed)
        if args.critic_workload:
            seen[i] = workload_features(*workload_of[i])
        next_episode += 1
        return envs.reset(i, episode_length(episode_of[i], args.episode_steps, args.longest_episode), seed)

    observe = lambda states: np.concatenate([states, seen], 1)
    for i in range(k):
        answers[i] = start(i)
    finished = 0
    updates = 0
    steps_done = 0
    total_steps = schedule_steps(args.episodes, args.episode_steps, args.longest_episode)
    # PPO's own schedule (learning rate, exploration) runs to main_steps; sharpening from there.
    main_steps = schedule_steps(args.episodes - args.sharpen_episodes, args.episode_steps, args.longest_episode)
    sharpen_from = main_steps if args.sharpen_episodes else 0

    def lr_now(steps):
        if steps >= main_steps and args.sharpen_episodes:
            return args.sharpen_lr / args.lr
        return lr_fraction(steps, main_steps, args.lr_schedule)
    best = best_tested = -1.0
    n = args.rollout
    while finished < args.episodes and time.time() - started < 60 * args.minutes:
        S = np.zeros((n, k, ke.STATE_SIZE + seen.shape[1]), np.float32)
        M = np.zeros((n, k, ke.MASK_SIZE), bool)
        A = np.zeros((n, k, ke.ACTION_SIZE), np.int64)
        LP = np.zeros((n, k), np.float32)
        V = np.zeros((n, k), np.float32)
        R = np.zeros((n, k), np.float32)
        D = np.zeros((n, k), bool)  # the episode was cut after the step: a truncation
        FV = np.zeros((n, k), np.float32)  # then the value of the state it was cut in
        # Exploration falls with the learning rate: the last rollouts are the policy's own.
        tau = temperature(steps_done, sharpen_from, total_steps, args.sharpen)
        fraction = lr_fraction(steps_done, main_steps, args.lr_schedule)
        roll = Rollout(model, rng, args.explore * fraction, tau, args.explore_batch * fraction)
        for t in range(n):
            s = observe(np.stack([a.state for a in answers]))
            m = np.stack([a.mask for a in answers])
            act, lp, v = roll.act(s, m)
            S[t], M[t], A[t], LP[t], V[t] = s, m, act, lp, v
            got = envs.step(list(act.astype(np.uint8)))
            R[t] = np.array([a.reward for a in got]) * args.reward_scale
            if scaler:
                R[t] = scaler(R[t], np.array([a.done for a in got]))
            for i, a in enumerate(got):
                if a.done:
                    # A cut, not a true end: the rest of the return is the value of the state it was cut in.
                    FV[t, i] = float(roll.value(np.concatenate([a.state, seen[i]])[None, :])[0])
                    D[t, i] = True
                    finished += 1
                    e = episode_of[i]
                    # The network as it is now (updated since this rollout began), tested apart,
                    # every time at one seed: the training episodes' seeds count up from seed * 1,000.
                    tested = test_episode(tester, Rollout(model, rng), args.test_steps, args.seed * 1000 + 999) if tester else None
                    writer.writerow([e + 1, a.steps, "%.5f" % a.attainment(), "%.1f" % a.total, a.ok, a.late, a.dropped, "%.0f" % (time.time() - started)]
                                    + workload_cells(workload_of[i]) + ["%.5f" % tested.attainment() if tested else ""])
                    log.flush()
                    export(model, args.out)
                    torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
                    if a.attainment() > best:
                        # The network as it ended its best episode so far: the one the figures
                        # after training use, where a run falls back after its peak.
                        best = a.attainment()
                        export(model, args.out, "best.krln")
                    if tested and tested.attainment() > best_tested:
                        # The network whose test was the best so far: the best as it serves.
                        best_tested = tested.attainment()
                        export(model, args.out, "best-tested.krln")
                    print("episode %d (%g models, %g requests/s, SLO %g ms): %d steps, attainment %.2f %%, reward %.0f (met %d, late %d, dropped %d)%s, %.0f s"
                          % ((e + 1,) + tuple(workload_of[i]) + (a.steps, 100 * a.attainment(), a.total, a.ok, a.late, a.dropped,
                                                                 ", tested %.2f %%" % (100 * tested.attainment()) if tested else "", time.time() - started)), flush=True)
                    a = start(i)
                answers[i] = a
        nxt = ppo.next_state_values(V, roll.value(observe(np.stack([a.state for a in answers]))), D, FV)
        adv, ret = ppo.gae(R, V, nxt, np.zeros_like(D), D, args.gamma, args.lam)
        flat = lambda x: torch.from_numpy(x.reshape(n * k, *x.shape[2:]))
        warming = updates < args.value_warmup
        updates += 1
        steps_done += n * k
        ppo.set_lr_fraction(opt, lr_now(steps_done))
        update(model, opt, ppo.Batch(*map(flat, (S, M, A, LP, adv, ret, V))), args, warming, tau)
    envs.close()
    if tester:
        tester.close()
    export(model, args.out)
    torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
    onnx = export_onnx(model, args.out)
    print("wrote %s/policy.krln%s after %d episodes, %.0f s" % (args.out, " and policy.onnx" if onnx else "", finished, time.time() - started))


if __name__ == "__main__":
    main()
