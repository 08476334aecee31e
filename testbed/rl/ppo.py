"""Proximal policy optimisation with invalid-action masking, on torch alone.

The algorithm as published: PPO's clipped surrogate (Schulman et al. 2017, "Proximal Policy
Optimization Algorithms"), generalised advantage estimation (Schulman et al. 2016), and invalid
action masking (Huang & Ontanon 2022, "A Closer Look at Invalid Action Masking in Policy Gradient
Algorithms"): a forbidden action's logit is replaced by a large negative number before the
softmax, so that it has probability 0, adds nothing to the entropy and gets no gradient.

Actions are MultiDiscrete: `nvec` heads, head h choosing one of nvec[h] values. The network gives
sum(nvec) logits per row, the heads' side by side, and the mask has one flag per logit, so every
head has its own mask. An action is one integer per head; its log probability is the sum of its
heads' (a subclass may weigh them, see MultiCategorical). A head with no allowed value is an
error.

The pieces, each usable alone (the Kairos trainer, train.py, uses the distribution, `gae` and
`update` with its own rollout loop over the Java environment):

- `MultiCategorical` (torch) and `np_log_softmax` / `np_sample` / `np_take` (numpy, for rollouts
  without a torch call per step): the masked distribution;
- `gae`: advantages and returns of a rollout, cut at episode ends, bootstrapped at truncations;
- `update`: PPO's epochs of minibatches over one rollout;
- `RewardScale`: rewards over the running standard deviation of the discounted return;
- `PPO`: a complete learner over a `VecEnv` of environments that follow `Env`'s protocol.
"""
import dataclasses
import functools
import math
from typing import Optional

import numpy as np
import torch
import torch.nn as nn

# A forbidden action's logit. exp(MASKED - max) is exactly 0 in float32 for any logit the network
# can give, and the value stays finite, so that 0 * log p is 0 rather than NaN.
MASKED = -1e9


class Env:
    """The protocol an environment follows (duck-typed: any object with these two methods).

    reset() -> (obs, mask)
    step(action) -> (obs, reward, terminated, truncated, mask)

    obs: a float array of a fixed shape. mask: a bool array of sum(nvec) flags, True where the
    value is allowed (None: all allowed). action: an int array of one value per head.
    terminated: the episode reached an end of the task (no return after it); truncated: it was
    cut (a time limit) in a state that has a future. After either, the caller resets.
    """

    def reset(self):
        raise NotImplementedError

    def step(self, action):
        raise NotImplementedError


@functools.lru_cache(maxsize=None)
def _layout(nvec):
    """Index of each head's logits in a (heads, widest) grid, and which grid cells are real."""
    width = max(nvec)
    index = np.zeros((len(nvec), width), np.int64)
    real = np.zeros((len(nvec), width), bool)
    offset = 0
    for h, n in enumerate(nvec):
        index[h, :n] = offset + np.arange(n)
        real[h, :n] = True
        offset += n
    return index, real


class MultiCategorical:
    """Independent masked categoricals, one per head, from a row of logits side by side.

    logits: (..., sum(nvec)); mask: bool of the same shape (None: all allowed). Internally a grid
    (..., heads, widest head) where the cells past a head's width count as forbidden.
    """

    def __init__(self, logits, mask, nvec):
        self.nvec = tuple(int(n) for n in nvec)
        if logits.shape[-1] != sum(self.nvec):
            raise ValueError("%d logits for heads %s" % (logits.shape[-1], self.nvec))
        index, real = _layout(self.nvec)
        index_t = torch.from_numpy(index)
        grid = logits[..., index_t]
        allowed = torch.from_numpy(real).expand(grid.shape)
        if mask is not None:
            allowed = allowed & mask.bool()[..., index_t]
        self.allowed = allowed
        self.logits = torch.where(allowed, grid, torch.full_like(grid, MASKED))
        self.log_probs = torch.log_softmax(self.logits, -1)

    @property
    def probs(self):
        """(..., heads, widest): each head's probabilities, 0 on forbidden values."""
        return torch.where(self.allowed, self.log_probs.exp(), torch.zeros_like(self.log_probs))

    def head_log_prob(self, actions):
        """(..., heads): each head's log probability of its value in `actions` (..., heads)."""
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def head_entropy(self):
        """(..., heads): each head's entropy over its allowed values."""
        p_log_p = torch.where(self.allowed, self.log_probs.exp() * self.log_probs, torch.zeros_like(self.log_probs))
        return -p_log_p.sum(-1)

    def log_prob(self, actions):
        return self.head_log_prob(actions).sum(-1)

    def entropy(self):
        return self.head_entropy().sum(-1)

    def _check(self):
        if not bool(self.allowed.any(-1).all()):
            raise ValueError("a head has no allowed value")

    def sample(self, generator=None, explore=0.0):
        """(..., heads) int64, drawn from each head's masked softmax; with `explore` > 0, each head
        draws uniformly among its allowed values with that probability instead (see np_sample)."""
        self._check()
        p = self.probs
        if explore > 0:
            allowed = self.allowed.to(p.dtype)
            p = (1 - explore) * p + explore * allowed / allowed.sum(-1, keepdim=True)
        flat = p.reshape(-1, p.shape[-1])
        return torch.multinomial(flat, 1, generator=generator).reshape(p.shape[:-1])

    def mode(self):
        """(..., heads) int64: each head's most probable allowed value."""
        self._check()
        return self.logits.argmax(-1)


# The same distribution in numpy, for choosing actions outside torch.

def np_log_softmax(logits, mask, nvec):
    """(n, heads, widest) log probabilities of the masked heads (forbidden cells about MASKED)."""
    index, real = _layout(tuple(nvec))
    grid = logits[..., index]
    allowed = real if mask is None else real & mask[..., index]
    if not allowed.any(-1).all():
        raise ValueError("a head has no allowed value")
    grid = np.where(allowed, grid, MASKED)
    grid = grid - grid.max(-1, keepdims=True)
    return grid - np.log(np.exp(grid).sum(-1, keepdims=True))


def np_sample(log_probs, rng, explore=0.0):
    """(n, heads) values drawn from np_log_softmax's output (Gumbel-max). With `explore` > 0, each
    head instead draws uniformly among its allowed values with that probability (a number, or one
    per head: 0 where a head is to draw from the policy alone).

    Exploration, and why the caller records the policy's own log probability of such a draw, not
    the mixture's: a softmax gives a value of probability p a policy gradient of size p (1 - p) in
    its logit, so a value the network has all but ruled out (p = 1e-6) is neither tried nor
    learnt, however much it would pay. Importance-weighting the uniform draws back to the policy
    (the unbiased estimate) gives exactly that same expected gradient, so it cannot help. Counted
    as the policy's own, a draw that pays is learnt at once (its ratio starts at 1 and the clip
    bounds each update's step); the price is a bias, towards the uniform choice's better values,
    of weight `explore`. Off (0) by default."""
    u = rng.random(log_probs.shape)
    drawn = (log_probs - np.log(-np.log(u))).argmax(-1)
    explore = np.asarray(explore, float)
    if not (explore > 0).any():
        return drawn
    allowed = log_probs > MASKED / 2
    v = rng.random(log_probs.shape)
    uniform = np.where(allowed, v, -1.0).argmax(-1)  # the largest of iid uniforms: uniform among the allowed
    return np.where(rng.random(drawn.shape) < explore, uniform, drawn)


def np_take(log_probs, actions):
    """(n, heads): each head's log probability of its value in `actions`."""
    return np.take_along_axis(log_probs, actions[..., None], -1)[..., 0]


def gae(rewards, values, next_values, terminated, truncated, gamma, lam):
    """Generalised advantage estimates and the returns the critic is fitted to.

    All arguments (steps, envs), step t of an environment being: in state s_t with value
    values[t], it earned rewards[t] and moved to s_{t+1}, whose value is next_values[t]. Where the
    episode went on, s_{t+1} is the next row's state (next_values[t] = values[t + 1]); where it was
    truncated, s_{t+1} is the state it was cut in (not the next episode's first), and its value
    stands for the return the cut took away; where it terminated, nothing follows and
    next_values[t] is not read. Either end stops the sum of deltas, so that one episode's
    advantages never take the next one's:

        delta_t = r_t + gamma * (1 - terminated_t) * V(s_{t+1}) - V(s_t)
        A_t = delta_t + gamma * lam * (1 - (terminated_t or truncated_t)) * A_{t+1}

    Returns (advantages, returns = advantages + values), float32.
    """
    rewards = np.asarray(rewards, np.float32)
    values = np.asarray(values, np.float32)
    next_values = np.asarray(next_values, np.float32)
    term = np.asarray(terminated, bool)
    end = term | np.asarray(truncated, bool)
    adv = np.zeros_like(rewards)
    last = np.zeros(rewards.shape[1:], np.float32)
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * np.where(term[t], 0.0, next_values[t]) - values[t]
        last = delta + gamma * lam * np.where(end[t], 0.0, last)
        adv[t] = last
    return adv, (adv + values).astype(np.float32)


def next_state_values(values, last_values, done, final_values):
    """next_values for `gae`: each row's successor's value, values[t + 1] within the rollout and
    last_values after its last row, except where an episode ended (done), where it is
    final_values[t], the value of the state the episode ended in (0 or anything where it
    terminated)."""
    values = np.asarray(values, np.float32)
    nxt = np.concatenate([values[1:], np.asarray(last_values, np.float32)[None]], 0)
    return np.where(np.asarray(done, bool), np.asarray(final_values, np.float32), nxt).astype(np.float32)


@dataclasses.dataclass
class Config:
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    clip_value: Optional[float] = None  # clip the critic's change per update as well (None: no)
    value_coef: float = 0.5
    entropy_coef: float = 0.0
    epochs: int = 4
    minibatch: int = 64
    lr: float = 2.5e-4
    anneal_lr: bool = False  # linearly to 0 over the run's updates (PPO only)
    max_grad_norm: Optional[float] = 0.5
    norm_adv: bool = True  # advantages normalised per minibatch
    target_kl: Optional[float] = None  # stop an update's epochs once an epoch's mean KL passes it
    rollout: int = 128  # steps per environment between updates (PPO only)
    explore: float = 0.0  # per head, the chance of a uniform draw among the allowed (np_sample; PPO only)


@dataclasses.dataclass
class Batch:
    """One rollout flattened to rows, as torch tensors."""
    obs: torch.Tensor
    mask: Optional[torch.Tensor]
    actions: torch.Tensor  # (rows, heads)
    log_probs: torch.Tensor  # under the policy that acted
    advantages: torch.Tensor
    returns: torch.Tensor
    values: Optional[torch.Tensor] = None  # the critic's when it acted; needed for clip_value

    def __len__(self):
        return len(self.obs)


def surrogate_loss(log_probs, old_log_probs, advantages, clip):
    """PPO's clipped surrogate, to minimise: mean of -min(r A, clip(r, 1-e, 1+e) A),
    r = exp(log_probs - old_log_probs)."""
    ratio = torch.exp(log_probs - old_log_probs)
    return -torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages).mean()


def value_loss(values, returns, old_values=None, clip=None):
    """Half the mean squared error; with `clip`, the larger of it and that of the prediction kept
    within `clip` of old_values (the clipped value objective of OpenAI's baselines)."""
    err = (values - returns) ** 2
    if clip is not None:
        clipped = old_values + torch.clamp(values - old_values, -clip, clip)
        err = torch.max(err, (clipped - returns) ** 2)
    return 0.5 * err.mean()


def update(model, opt, batch, cfg, distribution, value_only=False, clip_groups=None, generator=None):
    """PPO's epochs over one rollout: per minibatch, the clipped surrogate, the value loss and the
    entropy bonus, one Adam step. model(obs) -> (logits, values); distribution(logits, mask) -> a
    MultiCategorical (or one with the same log_prob and entropy). value_only: the critic's loss
    alone (to fit a critic under a fixed actor). clip_groups: lists of parameters whose gradient
    norms are clipped apart (default all together). Returns the statistics of the last epoch run:
    approx_kl (mean of (r - 1) - log r, an unbiased estimate of KL(old || new)), clip_fraction,
    policy_loss, value_loss, entropy, and epochs (how many ran, fewer where target_kl stopped)."""
    rows = len(batch)
    if clip_groups is None:
        clip_groups = [[p for g in opt.param_groups for p in g["params"]]]
    stats = {}
    epochs = 0
    for _ in range(cfg.epochs):
        order = torch.randperm(rows, generator=generator)
        acc = {k: [] for k in ("approx_kl", "clip_fraction", "policy_loss", "value_loss", "entropy")}
        for j in range(0, rows, cfg.minibatch):
            idx = order[j:j + cfg.minibatch]
            logits, v = model(batch.obs[idx])
            dist = distribution(logits, None if batch.mask is None else batch.mask[idx])
            lp = dist.log_prob(batch.actions[idx])
            ent = dist.entropy().mean()
            adv = batch.advantages[idx]
            if cfg.norm_adv and len(idx) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            old = batch.log_probs[idx]
            pg = surrogate_loss(lp, old, adv, cfg.clip)
            vl = value_loss(v, batch.returns[idx], None if batch.values is None else batch.values[idx], cfg.clip_value)
            loss = cfg.value_coef * vl if value_only else pg - cfg.entropy_coef * ent + cfg.value_coef * vl
            opt.zero_grad()
            loss.backward()
            if cfg.max_grad_norm is not None:
                for group in clip_groups:
                    nn.utils.clip_grad_norm_(group, cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                log_ratio = lp - old
                ratio = log_ratio.exp()
                acc["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                acc["clip_fraction"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
                acc["policy_loss"].append(float(pg))
                acc["value_loss"].append(float(vl))
                acc["entropy"].append(float(ent))
        epochs += 1
        stats = {k: float(np.mean(x)) for k, x in acc.items()}
        if not value_only and cfg.target_kl and stats["approx_kl"] > cfg.target_kl:
            break
    stats["epochs"] = epochs
    return stats


class RewardScale:
    """Rewards divided by the running standard deviation of the discounted return (PPO's reward
    scaling, as its reference implementations' reward normalisation): per environment the return
    so far, R = gamma R + r, set back to 0 where an episode ends; the standard deviation over every
    R seen (Welford's). Not centred: subtracting a mean would change which actions pay. Where
    returns run to the thousands, a critic's targets follow a scale it can fit; a workload whose
    returns grow as the policy worsens no longer grows them without bound."""

    def __init__(self, envs, gamma, eps=1e-8):
        self.ret = np.zeros(envs)
        self.gamma = gamma
        self.eps = eps
        self.count = 0
        self.mean = 0.0
        self.m2 = 0.0

    def std(self):
        return math.sqrt(self.m2 / self.count + self.eps) if self.count else 1.0

    def __call__(self, rewards, done):
        """rewards, done: (envs,), one step of each environment; the rewards scaled."""
        self.ret = self.gamma * self.ret + rewards
        for x in self.ret:
            self.count += 1
            d = x - self.mean
            self.mean += d / self.count
            self.m2 += d * (x - self.mean)
        scaled = rewards / self.std()
        self.ret = np.where(done, 0.0, self.ret)
        return scaled


def set_lr_fraction(opt, fraction):
    """Every parameter group's learning rate at `fraction` of its first (kept as 'base_lr')."""
    for group in opt.param_groups:
        group.setdefault("base_lr", group["lr"])
        group["lr"] = fraction * group["base_lr"]


class VecEnv:
    """Several environments stepped in turn, each reset as soon as its episode ends.

    step returns the next observations and masks (a new episode's first where one ended) and, for
    the rows whose episode ended, the observation it ended in (final_obs), whose value closes a
    truncated episode's return. Finished episodes' returns and lengths collect in `episodes`.
    """

    def __init__(self, envs):
        self.envs = list(envs)
        self.episodes = []  # (return, length) of each finished episode, in order
        self._ret = np.zeros(len(self.envs))
        self._len = np.zeros(len(self.envs), np.int64)

    def __len__(self):
        return len(self.envs)

    @staticmethod
    def _mask(mask, width):
        return np.ones(width, bool) if mask is None else np.asarray(mask, bool)

    def reset(self, width):
        got = [e.reset() for e in self.envs]
        self.width = width
        return np.stack([np.asarray(o, np.float32) for o, _ in got]), np.stack([self._mask(m, width) for _, m in got])

    def step(self, actions):
        n = len(self.envs)
        obs, masks, final = [], [], []
        rew = np.zeros(n, np.float32)
        term = np.zeros(n, bool)
        trunc = np.zeros(n, bool)
        for i, (e, a) in enumerate(zip(self.envs, actions)):
            o, r, te, tr, m = e.step(a)
            rew[i], term[i], trunc[i] = r, te, tr
            o = np.asarray(o, np.float32)
            final.append(o)
            self._ret[i] += r
            self._len[i] += 1
            if te or tr:
                self.episodes.append((float(self._ret[i]), int(self._len[i])))
                self._ret[i] = 0
                self._len[i] = 0
                o, m = e.reset()
                o = np.asarray(o, np.float32)
            obs.append(o)
            masks.append(self._mask(m, self.width))
        return np.stack(obs), rew, term, trunc, np.stack(masks), np.stack(final)


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs with tanh, initialised as CleanRL's PPO is (orthogonal,
    gain sqrt 2 in the hidden layers, 0.01 on the logits, 1 on the value)."""

    def __init__(self, obs_size, logits, hidden=64):
        super().__init__()

        def layer(i, o, gain):
            l = nn.Linear(i, o)
            nn.init.orthogonal_(l.weight, gain)
            nn.init.zeros_(l.bias)
            return l

        g = np.sqrt(2)
        self.actor = nn.Sequential(layer(obs_size, hidden, g), nn.Tanh(), layer(hidden, hidden, g), nn.Tanh(), layer(hidden, logits, 0.01))
        self.critic = nn.Sequential(layer(obs_size, hidden, g), nn.Tanh(), layer(hidden, hidden, g), nn.Tanh(), layer(hidden, 1, 1.0))

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(-1)


class PPO:
    """A learner over environments that follow `Env`'s protocol.

    ppo = PPO(model, envs, nvec, Config(...), seed=1)
    ppo.learn(total_steps, callback)  # callback(ppo, stats) -> True to stop early

    Every update collects cfg.rollout steps from each environment, computes GAE, and runs
    `update`. Seeded: the model's initial weights are the caller's; the sampling and the
    minibatch order come from a torch generator seeded with `seed`.
    """

    def __init__(self, model, envs, nvec, cfg, seed=0, distribution=None, opt=None):
        self.model = model
        self.nvec = tuple(nvec)
        self.cfg = cfg
        self.venv = envs if isinstance(envs, VecEnv) else VecEnv(envs)
        self.distribution = distribution or (lambda logits, mask: MultiCategorical(logits, mask, self.nvec))
        self.opt = opt or torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)
        self.gen = torch.Generator().manual_seed(seed)
        self.steps = 0
        self.updates = 0
        self.obs, self.mask = self.venv.reset(sum(self.nvec))

    def _value(self, obs):
        with torch.no_grad():
            return self.model(torch.from_numpy(obs))[1].numpy()

    def collect(self):
        """One rollout: a Batch of cfg.rollout x len(envs) rows, advantages and returns filled."""
        T, N = self.cfg.rollout, len(self.venv)
        H = len(self.nvec)
        obs = np.zeros((T, N) + self.obs.shape[1:], np.float32)
        masks = np.zeros((T, N, self.mask.shape[1]), bool)
        acts = np.zeros((T, N, H), np.int64)
        logp = np.zeros((T, N), np.float32)
        values = np.zeros((T, N), np.float32)
        rewards = np.zeros((T, N), np.float32)
        term = np.zeros((T, N), bool)
        trunc = np.zeros((T, N), bool)
        final_values = np.zeros((T, N), np.float32)
        for t in range(T):
            with torch.no_grad():
                logits, v = self.model(torch.from_numpy(self.obs))
                dist = self.distribution(logits, torch.from_numpy(self.mask))
                a = dist.sample(self.gen, self.cfg.explore)
                lp = dist.log_prob(a)  # the policy's own, also for an exploring draw (np_sample says why)
            obs[t], masks[t], acts[t], logp[t], values[t] = self.obs, self.mask, a.numpy(), lp.numpy(), v.numpy()
            self.obs, rewards[t], term[t], trunc[t], self.mask, final = self.venv.step(acts[t])
            cut = trunc[t] & ~term[t]
            if cut.any():
                final_values[t, cut] = self._value(final[cut])
        self.steps += T * N
        nxt = next_state_values(values, self._value(self.obs), term | trunc, final_values)
        adv, ret = gae(rewards, values, nxt, term, trunc, self.cfg.gamma, self.cfg.lam)
        flat = lambda x: torch.from_numpy(np.ascontiguousarray(x.reshape((T * N,) + x.shape[2:])))
        return Batch(flat(obs), flat(masks), flat(acts), flat(logp), flat(adv), flat(ret), flat(values))

    def learn(self, total_steps, callback=None):
        """Updates until total_steps environment steps (all environments together) or until the
        callback returns True; returns the last update's statistics."""
        per_update = self.cfg.rollout * len(self.venv)
        total_updates = max(1, total_steps // per_update)
        stats = {}
        while self.steps + per_update <= total_steps:
            if self.cfg.anneal_lr:
                set_lr_fraction(self.opt, 1.0 - self.updates / total_updates)
            batch = self.collect()
            stats = update(self.model, self.opt, batch, self.cfg, self.distribution, generator=self.gen)
            self.updates += 1
            if callback is not None and callback(self, stats):
                break
        return stats


def policy_probs(model, nvec, obs, mask=None):
    """(n, heads, widest) numpy: the policy's probabilities at each row of obs."""
    with torch.no_grad():
        logits, _ = model(torch.as_tensor(np.asarray(obs, np.float32)))
        m = None if mask is None else torch.as_tensor(np.asarray(mask, bool))
        return MultiCategorical(logits, m, nvec).probs.numpy()


def evaluate(model, nvec, envs, greedy=False, seed=0, distribution=None):
    """One episode in each environment with the model's policy (sampled, or each head's most
    probable value where greedy); their undiscounted returns."""
    distribution = distribution or (lambda logits, mask: MultiCategorical(logits, mask, nvec))
    gen = torch.Generator().manual_seed(seed)
    width = sum(nvec)
    state = [e.reset() for e in envs]
    returns = np.zeros(len(envs))
    live = list(range(len(envs)))
    while live:
        obs = torch.from_numpy(np.stack([np.asarray(state[i][0], np.float32) for i in live]))
        mask = torch.from_numpy(np.stack([VecEnv._mask(state[i][1], width) for i in live]))
        with torch.no_grad():
            dist = distribution(model(obs)[0], mask)
            acts = (dist.mode() if greedy else dist.sample(gen)).numpy()
        still = []
        for i, a in zip(live, acts):
            o, r, te, tr, m = envs[i].step(a)
            returns[i] += r
            state[i] = (o, m)
            if not (te or tr):
                still.append(i)
        live = still
    return returns
