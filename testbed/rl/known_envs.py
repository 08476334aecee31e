"""Environments whose best policy is known, to test a learner against (test_ppo.py).

- MaskedBandit: a contextual bandit with two action heads (MultiDiscrete), some values of each
  head forbidden per context, always including the one that would pay best; the best allowed
  action of each context, and any policy's expected reward, are exact.
- BatchQueue: a small queueing MDP on the scheduler's own question, wait or serve a batch: the
  queue's length is the state, a batch may not be larger than the queue and a full queue may not
  wait. Its optimal values come from value iteration, any policy's from a linear solve, both in
  this file. A continuing task cut by a time limit (truncation).
- CartPole: the cart-pole of Barto, Sutton & Anderson (1983), with the constants, equations,
  termination and 500-step limit of Gym's CartPole-v1; nothing masked.

Each follows ppo.Env's protocol: reset() -> (obs, mask), step(action) -> (obs, reward,
terminated, truncated, mask), the action one integer per head. Each takes its own seed.
"""
import math

import numpy as np


class MaskedBandit:
    """Contexts drawn uniformly; the observation is the context's one-hot. Action (a, b), a in
    0..heads[0]-1, b in 0..heads[1]-1; reward u[c, a] + w[c, b] + Gaussian noise. In each context
    each head's best-paying value is forbidden, and each other value is forbidden with probability
    `forbid`, one at least staying allowed. A forbidden action raises. One step per episode."""

    def __init__(self, seed, contexts=8, heads=(5, 4), noise=0.5, forbid=0.3, table_seed=12345):
        t = np.random.default_rng(table_seed)  # the problem, the same for every copy
        self.contexts = contexts
        self.nvec = tuple(heads)
        self.pay = [t.random((contexts, n)) for n in heads]
        self.allowed = []
        for p in self.pay:
            allowed = t.random(p.shape) >= forbid
            allowed[np.arange(contexts), p.argmax(1)] = False
            for c in range(contexts):
                if not allowed[c].any():
                    allowed[c, np.argsort(p[c])[-2]] = True
            self.allowed.append(allowed)
        self.noise = noise
        self.rng = np.random.default_rng(seed)  # this copy's contexts and noise
        self.c = 0

    def obs_of(self, c):
        o = np.zeros(self.contexts, np.float32)
        o[c] = 1
        return o

    def mask_of(self, c):
        return np.concatenate([a[c] for a in self.allowed])

    def reset(self):
        self.c = int(self.rng.integers(self.contexts))
        return self.obs_of(self.c), self.mask_of(self.c)

    def step(self, action):
        c = self.c
        if not all(a[c, v] for a, v in zip(self.allowed, action)):
            raise ValueError("forbidden action %s in context %d" % (list(action), c))
        r = sum(p[c, v] for p, v in zip(self.pay, action)) + self.noise * self.rng.standard_normal()
        return self.obs_of(c), float(r), True, False, self.mask_of(c)

    # Exact values.

    def all_states(self):
        """The observations and masks of every context, in order."""
        c = range(self.contexts)
        return np.stack([self.obs_of(i) for i in c]), np.stack([self.mask_of(i) for i in c])

    def optimal_value(self):
        """Expected reward of the best allowed action of each context, over the contexts."""
        return float(np.mean([sum(np.max(p[c][a[c]]) for p, a in zip(self.pay, self.allowed)) for c in range(self.contexts)]))

    def uniform_value(self):
        """Expected reward of the uniform choice among the allowed values of each head."""
        return float(np.mean([sum(np.mean(p[c][a[c]]) for p, a in zip(self.pay, self.allowed)) for c in range(self.contexts)]))

    def value(self, probs):
        """Expected reward of a policy: probs (contexts, heads, widest head) as
        ppo.policy_probs gives them."""
        total = 0.0
        for c in range(self.contexts):
            for h, p in enumerate(self.pay):
                total += float(probs[c, h, :len(p[c])] @ p[c])
        return total / self.contexts


class BatchQueue:
    """A queue of up to `capacity` requests served in batches.

    State: q, the requests waiting (0..capacity); observation its one-hot. Each step the server
    serves a batch of size BATCHES[k] (action k; size 0 waits) from the queue, then new requests
    arrive (0, 1 or 2, with ARRIVALS' probabilities); those that find the queue full are dropped.
    Mask: a batch no larger than the queue, and no waiting with the queue full. Cost of a step:
    SETUP per batch served (the fixed price of a batch), HOLD per request left waiting, DROP per
    request dropped; the reward is minus the cost times `scale`. So it pays to wait for a larger
    batch, but not too long. A continuing task: episodes start in a uniform random state and are
    truncated after `limit` steps; the objective is the discounted value with `gamma` from a
    uniform start.
    """

    BATCHES = (0, 1, 2, 4, 8)
    ARRIVALS = (0.4, 0.35, 0.25)  # P(0, 1, 2 arrivals)
    SETUP, HOLD, DROP = 4.0, 1.0, 10.0

    def __init__(self, seed, capacity=10, limit=64, scale=0.1):
        self.capacity = capacity
        self.limit = limit
        self.scale = scale
        self.nvec = (len(self.BATCHES),)
        self.rng = np.random.default_rng(seed)
        self.q = 0
        self.t = 0

    @property
    def states(self):
        return self.capacity + 1

    def obs_of(self, q):
        o = np.zeros(self.states, np.float32)
        o[q] = 1
        return o

    def mask_of(self, q):
        m = np.array([b <= q for b in self.BATCHES])
        if q == self.capacity:
            m[0] = False
        return m

    def reset(self):
        self.q = int(self.rng.integers(self.states))
        self.t = 0
        return self.obs_of(self.q), self.mask_of(self.q)

    def _outcomes(self, q, k):
        """[(probability, next q, reward)] of action k in state q."""
        b = self.BATCHES[k]
        left = q - b
        out = []
        for n, p in enumerate(self.ARRIVALS):
            dropped = max(left + n - self.capacity, 0)
            cost = self.SETUP * (b > 0) + self.HOLD * left + self.DROP * dropped
            out.append((p, left + n - dropped, -cost * self.scale))
        return out

    def step(self, action):
        k = int(action[0])
        if not self.mask_of(self.q)[k]:
            raise ValueError("forbidden batch %d with %d waiting" % (self.BATCHES[k], self.q))
        out = self._outcomes(self.q, k)
        i = self.rng.choice(len(out), p=[p for p, _, _ in out])
        _, self.q, r = out[i]
        self.t += 1
        return self.obs_of(self.q), float(r), False, self.t >= self.limit, self.mask_of(self.q)

    # Exact values.

    def all_states(self):
        s = range(self.states)
        return np.stack([self.obs_of(q) for q in s]), np.stack([self.mask_of(q) for q in s])

    def model(self):
        """P (actions, states, states) and R (states, actions), expected reward; forbidden
        actions have P 0 and R -inf."""
        S, A = self.states, len(self.BATCHES)
        P = np.zeros((A, S, S))
        R = np.full((S, A), -np.inf)
        for q in range(S):
            for k in range(A):
                if self.mask_of(q)[k]:
                    R[q, k] = 0
                    for p, q2, r in self._outcomes(q, k):
                        P[k, q, q2] += p
                        R[q, k] += p * r
        return P, R

    def value_iteration(self, gamma, tol=1e-10):
        """(V*, the optimal action per state) by value iteration over the allowed actions."""
        P, R = self.model()
        V = np.zeros(self.states)
        while True:
            Q = R + gamma * np.einsum("aij,j->ia", P, V)
            V2 = Q.max(1)
            if np.max(np.abs(V2 - V)) < tol:
                return V2, Q.argmax(1)
            V = V2

    def policy_value(self, probs, gamma):
        """V of a stochastic policy, probs (states, actions): (I - gamma P_pi)^-1 R_pi."""
        P, R = self.model()
        probs = np.where(np.isfinite(R), probs, 0.0)
        P_pi = np.einsum("ia,aij->ij", probs, P)
        R_pi = (probs * np.where(np.isfinite(R), R, 0.0)).sum(1)
        return np.linalg.solve(np.eye(self.states) - gamma * P_pi, R_pi)


class CartPole:
    """Gym's CartPole-v1 in numpy: state (x, x_dot, theta, theta_dot), action 0 pushes left and 1
    right with 10 N, Euler steps of 0.02 s; terminated when |x| > 2.4 or |theta| > 12 degrees,
    truncated after 500 steps; reward 1 per step, the terminating one included; a start uniform in
    [-0.05, 0.05] for each variable."""

    GRAVITY = 9.8
    MASSCART = 1.0
    MASSPOLE = 0.1
    TOTAL_MASS = MASSCART + MASSPOLE
    LENGTH = 0.5  # half the pole's length
    POLEMASS_LENGTH = MASSPOLE * LENGTH
    FORCE_MAG = 10.0
    TAU = 0.02
    THETA_THRESHOLD = 12 * 2 * math.pi / 360
    X_THRESHOLD = 2.4
    LIMIT = 500

    nvec = (2,)

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.state = np.zeros(4)
        self.t = 0

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.state.astype(np.float32), None

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.FORCE_MAG if int(action[0]) == 1 else -self.FORCE_MAG
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + self.POLEMASS_LENGTH * theta_dot ** 2 * sin) / self.TOTAL_MASS
        theta_acc = (self.GRAVITY * sin - cos * temp) / (self.LENGTH * (4.0 / 3.0 - self.MASSPOLE * cos ** 2 / self.TOTAL_MASS))
        x_acc = temp - self.POLEMASS_LENGTH * theta_acc * cos / self.TOTAL_MASS
        x = x + self.TAU * x_dot
        x_dot = x_dot + self.TAU * x_acc
        theta = theta + self.TAU * theta_dot
        theta_dot = theta_dot + self.TAU * theta_acc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.t += 1
        terminated = bool(x < -self.X_THRESHOLD or x > self.X_THRESHOLD or theta < -self.THETA_THRESHOLD or theta > self.THETA_THRESHOLD)
        truncated = self.t >= self.LIMIT
        return self.state.astype(np.float32), 1.0, terminated, truncated, None
