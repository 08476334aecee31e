"""The learned scheduler's environment, run by the Java simulator and stepped over a pipe.

`bin/kairos-lab rl env` speaks a fixed-size little-endian protocol on its standard input and output
(docs/learned-policy.md): 'R' int32 steps int64 seed resets, 'S' uint8[24] steps, 'Q' quits; each
answer carries the state (25 float32), the mask (84 bytes) and the reward accrued since the last
step, and at an episode's end its counts. 'W' int64 seed asks which workload (models, requests/s,
SLO in ms, three float64) an episode of that seed runs. `Envs` runs several such processes side by
side: their steps go out together and come back together, so that one forward pass of the network
serves them all and the processes simulate in parallel.
"""
import struct
import subprocess

import numpy as np

SLOTS = 12
STATE_SIZE = 2 * SLOTS + 1
BATCH_SIZES = (1, 2, 4, 8, 16)
CHOICES = 2 + len(BATCH_SIZES)
MASK_SIZE = SLOTS * CHOICES
ACTION_SIZE = 2 * SLOTS
STEP_BYTES = 1 + 4 + 4 * STATE_SIZE + MASK_SIZE
END_EXTRA = 4 + 8 + 3 * 8


class Answer:
    """One answer: a step wanted (done False) or the episode's end (done True, with its counts)."""
    __slots__ = ("done", "reward", "state", "mask", "steps", "total", "ok", "late", "dropped")

    def attainment(self):
        n = self.ok + self.late + self.dropped
        return float("nan") if n == 0 else self.ok / n


class Env:
    """One environment process."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.out = self.proc.stdin
        self.inp = self.proc.stdout

    def _read(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.inp.read(n - len(buf))
            if not chunk:
                raise EOFError("the environment process ended (exit status %s)" % self.proc.wait())
            buf += chunk
        return bytes(buf)

    def send_reset(self, steps, seed):
        self.out.write(b"R" + struct.pack("<iq", steps, seed))

    def send_step(self, action):
        self.out.write(b"S" + np.asarray(action, dtype=np.uint8).tobytes())

    def receive(self):
        head = self._read(STEP_BYTES)
        a = Answer()
        a.done = head[0] == 1
        a.reward = struct.unpack_from("<f", head, 1)[0]
        a.state = np.frombuffer(head, dtype="<f4", count=STATE_SIZE, offset=5).copy()
        a.mask = np.frombuffer(head, dtype=np.uint8, count=MASK_SIZE, offset=5 + 4 * STATE_SIZE).astype(bool)
        if a.done:
            a.steps, a.total, a.ok, a.late, a.dropped = struct.unpack("<idqqq", self._read(END_EXTRA))
        return a

    def reset(self, steps, seed):
        self.send_reset(steps, seed)
        return self.receive()

    def workload(self, seed):
        """(models, requests/s, SLO ms) of the episode this seed starts; between episodes only."""
        self.out.write(b"W" + struct.pack("<q", seed))
        return struct.unpack("<ddd", self._read(24))

    def step(self, action):
        self.send_step(action)
        return self.receive()

    def close(self):
        try:
            self.out.write(b"Q")
            self.out.close()
        except (BrokenPipeError, ValueError):
            pass
        self.proc.wait()
        self.inp.close()


class Envs:
    """Several environment processes stepped together."""

    def __init__(self, command, count):
        self.envs = [Env(command) for _ in range(count)]

    def __len__(self):
        return len(self.envs)

    def reset(self, i, steps, seed):
        return self.envs[i].reset(steps, seed)

    def workload(self, i, seed):
        return self.envs[i].workload(seed)

    def step(self, actions, which=None):
        """Steps the environments `which` (default all) with their actions; their answers, in order."""
        which = range(len(self.envs)) if which is None else which
        for i, a in zip(which, actions):
            self.envs[i].send_step(a)
        return [self.envs[i].receive() for i in which]

    def close(self):
        for e in self.envs:
            e.close()


def random_action(mask, rng):
    """The thesis' random agent: per slot, uniform over the allowed null/infer and batch sizes."""
    m = mask.reshape(SLOTS, CHOICES)
    action = np.zeros(ACTION_SIZE, dtype=np.uint8)
    for s in range(SLOTS):
        action[2 * s] = 1 if m[s, 1] and rng.random() < 0.5 else 0
        allowed = np.flatnonzero(m[s, 2:])
        action[2 * s + 1] = rng.choice(allowed)
    return action
