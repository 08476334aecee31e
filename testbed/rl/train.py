"""Masked PPO for the learned scheduler, on torch alone, against the Java environment over a pipe.

The RL thesis' training (its sections 3.6, 4.4, 5.2): episodes of 3,000 steps whose length doubles
every other episode up to 60,000, on its workload by default (2,400 requests/s over 48 ResNet50
instances, SLO 24 ms, 6 devices, reward RF3). Several environment processes run side by side
(--envs), each taking the next episode of the schedule when its own ends. The actor's logits are
masked (a forbidden choice gets -1e9 before the softmax), per slot a null/infer choice and, for an
infer, a batch size. After every episode the network is written (--out/policy.krln, the format
network_file.py describes) with the episode's attainment in --out/training.csv; at the end also an
ONNX export (policy.onnx) when torch's exporter works here.

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

# The state's scale before the first layer: pending counts / 16 (the largest batch), laxities
# and booked work in tens of ms. Padding laxity 1000 ms becomes 10.
NULL_BIAS = 3.0
SCALE = np.array([1 / 16, 1 / 100] * ke.SLOTS + [1 / 10], dtype=np.float32)


class ActorCritic(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.register_buffer("scale", torch.from_numpy(SCALE))
        self.actor = nn.Sequential(nn.Linear(ke.STATE_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                   nn.Linear(hidden, ke.MASK_SIZE))
        self.critic = nn.Sequential(nn.Linear(ke.STATE_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        # A small last layer: the first policy is near uniform over the allowed batch sizes, and
        # leans to null (logit +NULL_BIAS): a uniform one infers on half of the 12 slots at every
        # step, books seconds of work at once, and learns little from the wreck.
        nn.init.orthogonal_(self.actor[-1].weight, 0.01)
        with torch.no_grad():
            self.actor[-1].bias.zero_()
            self.actor[-1].bias.view(ke.SLOTS, ke.CHOICES)[:, 0] = NULL_BIAS

    def forward(self, state):
        x = state * self.scale
        return self.actor(x), self.critic(x).squeeze(-1)


def load_actor(model, path):
    """The actor's weights from a network file (the critic is left as it is: --value-warmup fits it)."""
    scale, offset, layers = network_file.read(path)
    if not np.allclose(scale, SCALE) or np.any(offset != 0):
        raise ValueError("%s: its input scale is not the trainer's" % path)
    linears = [l for l in model.actor if isinstance(l, nn.Linear)]
    if len(layers) != len(linears) or any(w.shape != tuple(l.weight.shape) for (w, _, _), l in zip(layers, linears)):
        raise ValueError("%s: its layers are not %d-%d-%d-%d" % (path, ke.STATE_SIZE, linears[0].out_features, linears[1].out_features, ke.MASK_SIZE))
    with torch.no_grad():
        for (w, b, _), l in zip(layers, linears):
            l.weight.copy_(torch.from_numpy(w.copy()))
            l.bias.copy_(torch.from_numpy(b.copy()))


def masked(logits, mask):
    """Per slot, the null/infer logits and the batch-size logits, forbidden choices at -1e9."""
    n = logits.shape[0]
    l = logits.view(n, ke.SLOTS, ke.CHOICES).masked_fill(~mask.view(n, ke.SLOTS, ke.CHOICES), -1e9)
    return l[..., :2], l[..., 2:]


def log_prob_and_entropy(logits, mask, infer, batch):
    """The log probability of (infer, batch) per row, the batch size counting only where it infers."""
    il, bl = masked(logits, mask)
    ilp = torch.log_softmax(il, -1)
    blp = torch.log_softmax(bl, -1)
    lp = ilp.gather(-1, infer.unsqueeze(-1)).squeeze(-1).sum(-1) \
        + (blp.gather(-1, batch.unsqueeze(-1)).squeeze(-1) * infer.float()).sum(-1)
    ent = -(ilp.exp() * ilp).sum(-1).sum(-1) - (blp.exp() * blp).sum(-1).sum(-1) * 0.5
    return lp, ent


def sample(logits, mask):
    il, bl = masked(logits, mask)
    infer = torch.distributions.Categorical(logits=il).sample()
    batch = torch.distributions.Categorical(logits=bl).sample()
    return infer, batch


class Rollout:
    """The model's actor and critic in numpy, for choosing actions while the environments run: a
    torch call per step costs milliseconds of fixed overhead, these few matrix products far less."""

    def __init__(self, model, rng):
        get = lambda seq: [(l.weight.detach().numpy().copy(), l.bias.detach().numpy().copy()) for l in seq if isinstance(l, nn.Linear)]
        self.actor = get(model.actor)
        self.critic = get(model.critic)
        self.rng = rng

    @staticmethod
    def _mlp(layers, x):
        for j, (w, b) in enumerate(layers):
            x = x @ w.T + b
            if j < len(layers) - 1:
                x = np.tanh(x)
        return x

    def value(self, s):
        return self._mlp(self.critic, s * SCALE)[:, 0]

    def act(self, s, m):
        """Sampled (infer, batch) per slot, their log probability, and the state's value."""
        x = s * SCALE
        l = np.where(m, self._mlp(self.actor, x), -1e9).reshape(len(s), ke.SLOTS, ke.CHOICES)
        z = l - np.log(-np.log(self.rng.random(l.shape)))  # Gumbel-max: a sample of the softmax
        infer = z[..., :2].argmax(-1)
        batch = z[..., 2:].argmax(-1)
        il = l[..., :2] - l[..., :2].max(-1, keepdims=True)
        il -= np.log(np.exp(il).sum(-1, keepdims=True))
        bl = l[..., 2:] - l[..., 2:].max(-1, keepdims=True)
        bl -= np.log(np.exp(bl).sum(-1, keepdims=True))
        lp = np.take_along_axis(il, infer[..., None], -1)[..., 0].sum(-1) \
            + (np.take_along_axis(bl, batch[..., None], -1)[..., 0] * infer).sum(-1)
        return infer, batch, lp, self._mlp(self.critic, x)[:, 0]


def urgent_action(state, mask):
    """The working-point rule the network may first imitate (--imitate): when the device has under
    5 ms booked, the most urgent slot's largest allowed batch; otherwise wait. Clockwork's idea
    (earliest deadline first, largest batch, a few ms booked ahead) in the thesis' action space."""
    infer = np.zeros(ke.SLOTS, np.int64)
    batch = np.zeros(ke.SLOTS, np.int64)
    if mask[1] and state[-1] < 5:
        infer[0] = 1
        batch[0] = max(k for k in range(len(ke.BATCH_SIZES)) if mask[2 + k])
    return infer, batch


def imitate(model, opt, envs, steps, args, writer, log, started):
    """Behaviour cloning of urgent_action on the states it meets, and the critic fitted to its
    discounted returns: a start for PPO where the thesis' reward alone learns slowly."""
    k = len(envs)
    answers = [envs.reset(i, steps, 900_000 + i) for i in range(k)]
    S, M, I, B, R, D = [], [], [], [], [], []
    live = list(range(k))
    while live:
        acts, rows = [], []
        for i in live:
            a = answers[i]
            inf, bat = urgent_action(a.state, a.mask)
            act = np.zeros(ke.ACTION_SIZE, np.uint8)
            act[0::2] = inf
            act[1::2] = bat
            acts.append(act)
            rows.append((a.state, a.mask, inf, bat))
        got = envs.step(acts, live)
        for i, (st, ma, inf, bat), a in zip(live, rows, got):
            S.append(st); M.append(ma); I.append(inf); B.append(bat); R.append(a.reward * args.reward_scale); D.append(a.done)
            answers[i] = a
            if a.done:
                writer.writerow([0, a.steps, "%.5f" % a.attainment(), "%.1f" % a.total, a.ok, a.late, a.dropped, "%.0f" % (time.time() - started)])
                log.flush()
                print("imitation rollout: %d steps, attainment %.2f %%" % (a.steps, 100 * a.attainment()), flush=True)
        live = [i for i in live if not answers[i].done]
    # Returns per environment: the rows of one environment are every k-th while all run; simpler and
    # close enough, a return per row over the rows that follow it in its own environment's order.
    S = torch.from_numpy(np.stack(S)); M = torch.from_numpy(np.stack(M))
    I = torch.from_numpy(np.stack(I)); B = torch.from_numpy(np.stack(B))
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
            lp, _ = log_prob_and_entropy(logits, M[idx], I[idx], B[idx])
            loss = -lp.mean() + 0.5 * ((v - ret[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            total += float(-lp.mean()) * len(idx)
        with torch.no_grad():
            il, bl = masked(model(S)[0], M)
            same = ((il.argmax(-1) == I).all(-1) & ((bl.argmax(-1) == B) | (I == 0)).all(-1)).float().mean()
        print("imitation epoch %d: mean -log p %.4f, argmax agrees with the rule on %.2f %% of steps" % (epoch + 1, total / n, 100 * float(same)), flush=True)


def gae(R, V, D, gamma, lam):
    """Generalised advantage estimates and returns of a rollout: R, D (1 where an episode was cut
    after the step, its bootstrap already in R) of shape (steps, envs), V one row longer."""
    n = len(R)
    adv = np.zeros_like(R)
    last = np.zeros(R.shape[1:], np.float32)
    for t in reversed(range(n)):
        nonterminal = 1 - D[t]
        delta = R[t] + gamma * V[t + 1] * nonterminal - V[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + V[:n]


def update(model, opt, fs, fm, fi, fb, flp, fadv, fret, args, warming=False):
    """PPO's epochs over one rollout (flattened rows): the clipped surrogate and the critic's
    squared error; while warming, the critic's alone. Returns the last epoch's mean KL."""
    rows = len(fs)
    kl = []
    for _ in range(args.epochs):
        order = torch.randperm(rows)
        kl = []
        for j in range(0, rows, args.minibatch):
            idx = order[j:j + args.minibatch]
            logits, v = model(fs[idx])
            lp, ent = log_prob_and_entropy(logits, fm[idx], fi[idx], fb[idx])
            a = fadv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            ratio = torch.exp(lp - flp[idx])
            pg = -torch.min(ratio * a, torch.clamp(ratio, 1 - args.clip, 1 + args.clip) * a).mean()
            vl = 0.5 * ((v - fret[idx]) ** 2).mean()
            loss = 0.5 * vl if warming else pg + 0.5 * vl - args.entropy * ent.mean()
            opt.zero_grad()
            loss.backward()
            # Clipped apart: a critic far off (returns of a backlog run to thousands) has
            # gradients that, clipped together with the actor's, would shrink the actor's to nothing.
            nn.utils.clip_grad_norm_(model.actor.parameters(), 0.5)
            nn.utils.clip_grad_norm_(model.critic.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                kl.append(float((flp[idx] - lp).mean()))
        if not warming and args.target_kl > 0 and np.mean(kl) > args.target_kl:
            break
    return float(np.mean(kl)) if kl else 0.0


def episode_length(e, first=3000):
    """Episode e's steps (from 0): the thesis' 3,000 doubling every other episode, at most 60,000."""
    return min(first * 2 ** (e // 2), 60000)


def export(model, out):
    a = model.actor
    layers = [(a[0].weight.detach().numpy(), a[0].bias.detach().numpy(), "tanh"),
              (a[2].weight.detach().numpy(), a[2].bias.detach().numpy(), "tanh"),
              (a[4].weight.detach().numpy(), a[4].bias.detach().numpy(), "none")]
    tmp = os.path.join(out, "policy.krln.tmp")
    network_file.write(tmp, SCALE, np.zeros_like(SCALE), layers)
    os.replace(tmp, os.path.join(out, "policy.krln"))


def export_onnx(model, out):
    class Logits(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, state):
            return self.m.actor(state * self.m.scale)

    try:
        torch.onnx.export(Logits(model), torch.zeros(1, ke.STATE_SIZE), os.path.join(out, "policy.onnx"),
                          input_names=["state"], output_names=["logits"], dynamic_axes={"state": {0: "n"}, "logits": {0: "n"}})
        return True
    except Exception as e:  # the exporter needs the onnx package, which may be missing
        print("ONNX export skipped: %s" % e, file=sys.stderr)
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-command", default="bin/kairos rl env", help="serves the environment (default: %(default)s)")
    p.add_argument("--env-args", default="", help="more arguments for it, e.g. '--rate 1200 --models 12 --reward rf2'")
    p.add_argument("--envs", type=int, default=4, help="environment processes (default: %(default)s)")
    p.add_argument("--episodes", type=int, default=20, help="episodes of the schedule in all (default: %(default)s)")
    p.add_argument("--episode-steps", type=int, default=3000, help="the first episode's steps, doubling every other one (default: %(default)s, the thesis')")
    p.add_argument("--minutes", type=float, default=30, help="stop after this wall time, network kept (default: %(default)s)")
    p.add_argument("--rollout", type=int, default=1024, help="steps per environment between updates (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=512)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--critic-lr", type=float, help="the critic's learning rate (default: --lr); a critic started fresh under a tuned actor needs a larger one")
    p.add_argument("--gamma", type=float, default=0.995, help="per step; 6 devices take 6 steps per ms (default: %(default)s)")
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--entropy", type=float, default=0.0, help="entropy bonus; above 0 it pulls every slot toward infer half the time (default: %(default)s)")
    p.add_argument("--reward-scale", type=float, default=0.1)
    p.add_argument("--hidden", type=int, default=64)
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
    p.add_argument("--out", default="testbed/experiments/rl/train")
    args = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    model = ActorCritic(args.hidden)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    if args.init_network:
        load_actor(model, args.init_network)
    critic_lr = args.critic_lr if args.critic_lr is not None else args.lr
    opt = torch.optim.Adam([{"params": model.actor.parameters(), "lr": args.lr, "base": args.lr},
                            {"params": model.critic.parameters(), "lr": critic_lr, "base": critic_lr}], eps=1e-5)
    command = shlex.split(args.env_command) + shlex.split(args.env_args)
    envs = ke.Envs(command, args.envs)
    k = len(envs)
    started = time.time()
    log = open(os.path.join(args.out, "training.csv"), "w", newline="")
    writer = csv.writer(log)
    writer.writerow(["episode", "steps", "attainment", "reward", "ok", "late", "dropped", "wall_s"])

    if args.imitate > 0:
        imitate(model, opt, envs, args.imitate, args, writer, log, started)
        export(model, args.out)
        torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
        for group in opt.param_groups:
            group["lr"] = group["base"]
    next_episode = 0
    episode_of = [None] * k
    answers = [None] * k
    for i in range(k):
        episode_of[i] = next_episode
        answers[i] = envs.reset(i, episode_length(next_episode, args.episode_steps), args.seed * 1000 + next_episode)
        next_episode += 1
    finished = 0
    updates = 0
    n = args.rollout
    while finished < args.episodes and time.time() - started < 60 * args.minutes:
        S = np.zeros((n, k, ke.STATE_SIZE), np.float32)
        M = np.zeros((n, k, ke.MASK_SIZE), bool)
        I = np.zeros((n, k, ke.SLOTS), np.int64)
        B = np.zeros((n, k, ke.SLOTS), np.int64)
        LP = np.zeros((n, k), np.float32)
        V = np.zeros((n + 1, k), np.float32)
        R = np.zeros((n, k), np.float32)
        D = np.zeros((n, k), np.float32)
        roll = Rollout(model, rng)
        for t in range(n):
            s = np.stack([a.state for a in answers])
            m = np.stack([a.mask for a in answers])
            infer, batch, lp, v = roll.act(s, m)
            S[t], M[t], I[t], B[t], LP[t], V[t] = s, m, infer, batch, lp, v
            actions = np.zeros((k, ke.ACTION_SIZE), np.uint8)
            actions[:, 0::2] = I[t]
            actions[:, 1::2] = B[t]
            got = envs.step(list(actions))
            for i, a in enumerate(got):
                R[t, i] = a.reward * args.reward_scale
                if a.done:
                    # A cut, not a true end: the rest of the return is the value of the state it was cut in.
                    R[t, i] += args.gamma * float(roll.value(a.state[None, :])[0])
                    D[t, i] = 1
                    finished += 1
                    e = episode_of[i]
                    writer.writerow([e + 1, a.steps, "%.5f" % a.attainment(), "%.1f" % a.total, a.ok, a.late, a.dropped, "%.0f" % (time.time() - started)])
                    log.flush()
                    export(model, args.out)
                    torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
                    print("episode %d: %d steps, attainment %.2f %%, reward %.0f (met %d, late %d, dropped %d), %.0f s"
                          % (e + 1, a.steps, 100 * a.attainment(), a.total, a.ok, a.late, a.dropped, time.time() - started), flush=True)
                    episode_of[i] = next_episode
                    a = envs.reset(i, episode_length(next_episode, args.episode_steps), args.seed * 1000 + next_episode)
                    next_episode += 1
                answers[i] = a
        V[n] = roll.value(np.stack([a.state for a in answers]))
        adv, ret = gae(R, V, D, args.gamma, args.lam)
        flat = lambda x: torch.from_numpy(x.reshape(n * k, *x.shape[2:]))
        warming = updates < args.value_warmup
        updates += 1
        update(model, opt, *map(flat, (S, M, I, B, LP, adv, ret)), args, warming)
    envs.close()
    export(model, args.out)
    torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))
    onnx = export_onnx(model, args.out)
    print("wrote %s/policy.krln%s after %d episodes, %.0f s" % (args.out, " and policy.onnx" if onnx else "", finished, time.time() - started))


if __name__ == "__main__":
    main()
