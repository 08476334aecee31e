"""Tests of the trainer: its pieces that need no environment (the network file round trip, the
numpy rollout against torch, the PPO update on a bandit, the episode schedule), and a short
training against the Java environment (`bin/kairos-lab rl env`, built from this checkout on first use).
The PPO pieces it uses (masking, GAE, the update) are tested on their own in test_ppo.py.

    cd testbed/rl && /usr/bin/python3 -m unittest test_rl
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

import kairos_env as ke
import network_file
import probe
import ppo
import train


def certain(infer, size_index=0):
    """An actor certain, on every slot, to infer (or to wait), at the batch size of that index
    where it infers: logits 30 on those choices and 0 elsewhere, from any state."""
    model = train.ActorCritic(8)
    with torch.no_grad():
        for p in model.actor.parameters():
            p.zero_()
        bias = model.actor[-1].bias.view(ke.SLOTS, ke.CHOICES)
        bias[:, 1 if infer else 0] = 30.0
        bias[:, 2 + size_index] = 30.0
    return model


class NetworkFileTest(unittest.TestCase):
    def test_the_file_computes_what_the_actor_computes(self):
        torch.manual_seed(3)
        model = train.ActorCritic(16)
        for p in model.actor.parameters():
            p.data.normal_(0, 0.3)
        with tempfile.TemporaryDirectory() as d:
            train.export(model, d)
            net = network_file.read(os.path.join(d, "policy.krln"))
            # 12 header + 25*4*3 (scale, offset, cap) + 4 count + 3 * 8 layer headers + weights and biases
            size = os.path.getsize(os.path.join(d, "policy.krln"))
            self.assertEqual(size, 12 + 300 + 4 + 24 + 4 * (16 * 25 + 16 + 16 * 16 + 16 + 84 * 16 + 84))
        # Laxities up to 150 ms: some above the 100 ms cap, where file and actor must both cap.
        state = np.random.default_rng(1).random(ke.STATE_SIZE).astype(np.float32) * 150
        state[1] = 1000.0
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(state[None, :]))
        np.testing.assert_allclose(network_file.evaluate(net, state), logits.numpy()[0], atol=1e-5)

    def test_capped_inputs_see_a_padding_slot_as_a_queue_with_100_ms_to_spare(self):
        model = train.ActorCritic(16)
        state = np.zeros((2, ke.STATE_SIZE), np.float32)
        state[0, 1] = 1000.0   # a padding slot's laxity
        state[1, 1] = 100.0
        state[:, 0] = 200.0    # 200 pending, capped at 64: 4
        state[:, 24] = 7.0     # 7 ms booked: 0.7
        x = model.features(torch.from_numpy(state)).numpy()
        np.testing.assert_allclose(x[0], x[1])
        np.testing.assert_allclose(x[0, :2], [4.0, 10.0])
        self.assertAlmostEqual(float(x[0, 24]), 0.7, places=6)
        # Under the cap 1 ms is 0.1; the plain inputs of the networks before it: 0.01, and no cap.
        state[0, 1] = 3.0
        self.assertAlmostEqual(float(model.features(torch.from_numpy(state))[0, 1]), 0.3, places=6)
        plain = train.ActorCritic(16, "plain")
        x = plain.features(torch.from_numpy(state)).numpy()
        self.assertAlmostEqual(float(x[0, 1]), 0.03, places=6)
        self.assertAlmostEqual(float(x[1, 1]), 1.0, places=6)
        self.assertAlmostEqual(float(x[0, 0]), 12.5, places=5)

    def test_a_plain_network_is_written_as_version_1_and_read_back_uncapped(self):
        torch.manual_seed(4)
        model = train.ActorCritic(16, "plain")
        with tempfile.TemporaryDirectory() as d:
            train.export(model, d)
            path = os.path.join(d, "policy.krln")
            self.assertEqual(open(path, "rb").read()[4:8], (1).to_bytes(4, "little"))
            net = network_file.read(path)
            self.assertTrue(np.all(np.isinf(net.cap)))
            # The trainer refuses to start a capped actor from it, naming the inputs.
            with self.assertRaisesRegex(ValueError, "not the trainer's --inputs capped"):
                train.load_actor(train.ActorCritic(16), path)
            train.load_actor(train.ActorCritic(16, "plain"), path)
            # A plain checkpoint continued under the default --inputs (--init) keeps its plain
            # buffers, and is written as what it was fed: version 1, not infinite caps.
            resumed = train.ActorCritic(16)
            resumed.load_state_dict(model.state_dict())
            os.remove(path)
            train.export(resumed, d)
            self.assertEqual(open(path, "rb").read()[4:8], (1).to_bytes(4, "little"))

    def test_a_file_with_another_magic_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.krln")
            open(path, "wb").write(b"ONNX....")
            with self.assertRaisesRegex(ValueError, "not a policy network"):
                network_file.read(path)


class RolloutTest(unittest.TestCase):
    def test_numpy_log_probability_and_value_equal_torchs(self):
        torch.manual_seed(0)
        model = train.ActorCritic(32)
        for p in model.actor.parameters():
            p.data.normal_(0, 0.5)
        rng = np.random.default_rng(0)
        s = (rng.random((6, ke.STATE_SIZE)) * 20).astype(np.float32)
        mask = rng.random((6, ke.MASK_SIZE)) < 0.6
        m = mask.reshape(6, ke.SLOTS, ke.CHOICES)
        m[..., 0] = True
        m[..., 2] = True
        act, lp, v = train.Rollout(model, rng).act(s, mask)
        infer, batch = act[:, 0::2], act[:, 1::2]
        # Sampled choices are allowed ones.
        self.assertTrue(np.all(np.take_along_axis(m[..., :2], infer[..., None], -1)))
        self.assertTrue(np.all(np.take_along_axis(m[..., 2:], batch[..., None], -1)))
        with torch.no_grad():
            logits, vt = model(torch.from_numpy(s))
            lpt = train.SlotDistribution(logits, torch.from_numpy(mask)).log_prob(torch.from_numpy(act))
        np.testing.assert_allclose(lp, lpt.numpy(), atol=1e-4)
        np.testing.assert_allclose(v, vt.numpy(), atol=1e-5)
        # What the network serves: the masked argmax per head, torch's mode.
        served = train.Rollout(model, rng).serve(s, mask)
        np.testing.assert_array_equal(served, train.SlotDistribution(logits, torch.from_numpy(mask)).mode().numpy())
        self.assertTrue(np.all(np.take_along_axis(m[..., :2], served[:, 0::2][..., None], -1)))

    def test_a_critic_that_sees_the_workload_values_it_and_the_actor_never_sees_it(self):
        torch.manual_seed(0)
        model = train.ActorCritic(32, workload=True)
        for p in model.parameters():
            p.data.normal_(0, 0.5)
        rng = np.random.default_rng(1)
        s = (rng.random((4, ke.STATE_SIZE)) * 20).astype(np.float32)
        light = np.concatenate([s, np.tile(train.workload_features(12, 600, 96), (4, 1))], 1)
        heavy = np.concatenate([s, np.tile(train.workload_features(48, 2400, 6), (4, 1))], 1)
        # The sweep's corners are the scale's: 0 and 1 on every input but 12 models' 0.25.
        np.testing.assert_allclose(light[0, ke.STATE_SIZE:], [0.25, 0, 1])
        np.testing.assert_allclose(heavy[0, ke.STATE_SIZE:], [1, 1, 0])
        with torch.no_grad():
            (la, lv), (ha, hv) = model(torch.from_numpy(light)), model(torch.from_numpy(heavy))
        np.testing.assert_array_equal(la.numpy(), ha.numpy())
        self.assertTrue(np.all(np.abs(lv.numpy() - hv.numpy()) > 1e-3))
        # The numpy rollout reads the observation as torch does.
        mask = np.ones((4, ke.MASK_SIZE), bool)
        _, _, v = train.Rollout(model, rng).act(heavy, mask)
        np.testing.assert_allclose(v, hv.numpy(), atol=1e-5)
        np.testing.assert_allclose(train.Rollout(model, rng).value(light), lv.numpy(), atol=1e-5)

    def test_a_checkpoint_whose_critic_saw_the_state_alone_starts_one_that_sees_the_workload_unchanged(self):
        torch.manual_seed(0)
        blind = train.ActorCritic(32)
        for p in blind.parameters():
            p.data.normal_(0, 0.5)
        rng = np.random.default_rng(2)
        s = torch.from_numpy((rng.random((5, ke.STATE_SIZE)) * 20).astype(np.float32))
        obs = torch.cat([s, torch.from_numpy(rng.random((5, train.WORKLOAD_SIZE)).astype(np.float32))], 1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "policy.pt")
            torch.save(blind.state_dict(), path)
            seeing = train.ActorCritic(32, workload=True)
            train.load_checkpoint(seeing, path)
        with torch.no_grad():
            (a0, v0), (a1, v1) = blind(s), seeing(obs)
        np.testing.assert_allclose(a1.numpy(), a0.numpy(), atol=1e-6)
        np.testing.assert_allclose(v1.numpy(), v0.numpy(), atol=1e-5)
        self.assertEqual(tuple(seeing.critic[0].weight.shape), (32, ke.STATE_SIZE + train.WORKLOAD_SIZE))

    def test_exploring_draws_null_or_infer_uniformly_and_the_batch_size_from_the_policy(self):
        # A network certain to wait, and certain of batch size 8 (index 3) where it infers. At
        # explore 1 every slot draws null or infer half the time each; the batch size stays 8, and
        # the log probability recorded is the policy's own: about 0 for a wait, about -30 for an infer.
        model = certain(infer=False, size_index=3)
        n = 2000
        s = np.zeros((n, ke.STATE_SIZE), np.float32)
        mask = np.ones((n, ke.MASK_SIZE), bool)
        act, lp, _ = train.Rollout(model, np.random.default_rng(5), explore=1.0).act(s, mask)
        infer, batch = act[:, 0::2], act[:, 1::2]
        self.assertAlmostEqual(infer.mean(), 0.5, delta=0.01)
        self.assertTrue((batch[infer == 1] == 3).all())
        np.testing.assert_allclose(lp, -30.0 * infer.sum(1), atol=1e-3)
        waited, _, _ = train.Rollout(model, np.random.default_rng(5)).act(s, mask)
        self.assertTrue((waited[:, 0::2] == 0).all())

    def test_exploring_the_batch_size_draws_it_uniformly_among_the_allowed_and_infers_as_the_policy_does(self):
        # A network certain to infer, and certain of batches of one (index 0), where only sizes
        # 1, 2 and 4 are allowed. At explore_batch 1 each slot's size is 1, 2 or 4 a third of the
        # time each, never 8 or 16, and still always an infer; the log probability recorded is
        # the policy's own: about 0 for a batch of one, about -30 for a larger one. Without it,
        # every batch is of one.
        model = certain(infer=True, size_index=0)
        n = 3000
        s = np.zeros((n, ke.STATE_SIZE), np.float32)
        mask = np.ones((n, ke.MASK_SIZE), bool).reshape(n, ke.SLOTS, ke.CHOICES)
        mask[:, :, 2 + 3:] = False
        mask = mask.reshape(n, ke.MASK_SIZE)
        act, lp, _ = train.Rollout(model, np.random.default_rng(5), explore_batch=1.0).act(s, mask)
        infer, batch = act[:, 0::2], act[:, 1::2]
        self.assertTrue((infer == 1).all())
        for size in range(3):
            self.assertAlmostEqual((batch == size).mean(), 1 / 3, delta=0.01)
        self.assertFalse((batch >= 3).any())
        np.testing.assert_allclose(lp, -30.0 * (batch != 0).sum(1), atol=1e-3)
        ones, _, _ = train.Rollout(model, np.random.default_rng(5)).act(s, mask)
        self.assertTrue((ones[:, 1::2] == 0).all())

    def test_a_sharpened_rollout_samples_the_logits_over_its_temperature_and_serves_the_same_argmax(self):
        # Every slot: null logit log 3, infer 0, so infer at 1/4 (a random timer: served, it never
        # infers). At temperature 1/2 the logits double: infer at 1/(9 + 1) = 1/10, and the log
        # probability recorded is that policy's; the argmax is the same at any temperature.
        model = train.ActorCritic(8)
        with torch.no_grad():
            for p in model.actor.parameters():
                p.zero_()
            model.actor[-1].bias.view(ke.SLOTS, ke.CHOICES)[:, 0] = float(np.log(3.0))
        n = 4000
        s = np.zeros((n, ke.STATE_SIZE), np.float32)
        mask = np.ones((n, ke.MASK_SIZE), bool)
        for tau, p_infer in ((1.0, 0.25), (0.5, 0.1)):
            roll = train.Rollout(model, np.random.default_rng(7), temperature=tau)
            act, lp, _ = roll.act(s, mask)
            infer = act[:, 0::2]
            self.assertAlmostEqual(infer.mean(), p_infer, delta=0.01)
            # Per slot log p(null or infer) at this temperature, and log 1/5 per inferring slot's batch size.
            want = (infer * (np.log(p_infer) + np.log(0.2)) + (1 - infer) * np.log(1 - p_infer)).sum(1)
            np.testing.assert_allclose(lp, want, atol=1e-4)
            self.assertTrue((roll.serve(s, mask)[:, 0::2] == 0).all())

    def test_a_batch_size_counts_only_where_its_slot_infers(self):
        # Uniform logits, everything allowed: per slot null/infer 1/2, batch size 1/5. Slot 0
        # infers, the other eleven wait: 12 log(1/2) + log(1/5), whatever the waiting slots' sizes.
        logits = torch.zeros(2, ke.MASK_SIZE)
        mask = torch.ones(2, ke.MASK_SIZE, dtype=torch.bool)
        act = torch.zeros(2, ke.ACTION_SIZE, dtype=torch.long)
        act[:, 0] = 1
        act[1, 3::2] = 4
        lp = train.SlotDistribution(logits, mask).log_prob(act)
        np.testing.assert_allclose(lp.numpy(), [12 * np.log(0.5) + np.log(0.2)] * 2, atol=1e-5)


class PpoUpdateTest(unittest.TestCase):
    def test_the_update_learns_a_bandits_best_action(self):
        # One-step episodes: slot 0 may infer at any batch size, the other slots only wait (their
        # batch size 1 allowed, moot, as the environment's mask has it); the reward is 1 for
        # inferring on slot 0 at the largest batch. The first policy leans to null, so it starts
        # near 1 %; the update must drive the sampled policy to that action.
        torch.manual_seed(0)
        rng = np.random.default_rng(0)
        model = train.ActorCritic(64)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5)
        args = type("Args", (), dict(epochs=4, minibatch=256, clip=0.2, entropy=0.0, target_kl=0.0))
        n = 1024
        mask = np.zeros((n, ke.SLOTS, ke.CHOICES), bool)
        mask[:, :, 0] = True
        mask[:, :, 2] = True
        mask[:, 0, :] = True
        mask = mask.reshape(n, ke.MASK_SIZE)
        t = lambda x: torch.from_numpy(np.ascontiguousarray(x))
        good = []
        for _ in range(12):
            s = (rng.random((n, ke.STATE_SIZE)) * 20).astype(np.float32)
            act, lp, v = train.Rollout(model, rng).act(s, mask)
            r = ((act[:, 0] == 1) & (act[:, 1] == len(ke.BATCH_SIZES) - 1)).astype(np.float32)
            good.append(r.mean())
            train.update(model, opt, ppo.Batch(t(s), t(mask), t(act), t(lp.astype(np.float32)), t(r - v), t(r)), args)
        self.assertLess(good[0], 0.1)
        self.assertGreater(good[-1], 0.9)

    def test_a_sharpened_update_takes_the_ratio_at_the_rollouts_temperature(self):
        # A rollout sampled at temperature 1/2 and updated at 1/2: before the first step the new
        # policy is the old one, so every ratio is 1 and nothing is clipped; updated at
        # temperature 1 instead, the log probabilities differ and the ratios are off.
        torch.manual_seed(1)
        rng = np.random.default_rng(1)
        model = train.ActorCritic(16)
        for p in model.actor.parameters():
            p.data.normal_(0, 0.3)
        args = type("Args", (), dict(epochs=1, minibatch=64, clip=0.2, entropy=0.0, target_kl=0.0))
        n = 64
        s = (rng.random((n, ke.STATE_SIZE)) * 20).astype(np.float32)
        mask = np.ones((n, ke.MASK_SIZE), bool)
        act, lp, v = train.Rollout(model, rng, temperature=0.5).act(s, mask)
        t = lambda x: torch.from_numpy(np.ascontiguousarray(x))
        batch = ppo.Batch(t(s), t(mask), t(act), t(lp.astype(np.float32)), t(np.zeros(n, np.float32)), t(v))
        at_half = train.update(model, torch.optim.SGD(model.parameters(), lr=0.0), batch, args, temperature=0.5)
        self.assertLess(at_half["approx_kl"], 1e-9)
        self.assertEqual(at_half["clip_fraction"], 0.0)
        at_one = train.update(model, torch.optim.SGD(model.parameters(), lr=0.0), batch, args)
        self.assertGreater(at_one["clip_fraction"], 0.5)


class ScheduleTest(unittest.TestCase):
    def test_episodes_double_every_other_one_up_to_60000(self):
        self.assertEqual([train.episode_length(e) for e in range(12)],
                         [3000, 3000, 6000, 6000, 12000, 12000, 24000, 24000, 48000, 48000, 60000, 60000])

    def test_the_forty_episodes_take_1986000_steps(self):
        # 2 x (3,000 + 6,000 + 12,000 + 24,000 + 48,000) = 186,000, then 30 episodes of 60,000.
        self.assertEqual(train.schedule_steps(40), 1_986_000)
        self.assertEqual(train.schedule_steps(2, 300), 600)

    def test_a_shorter_longest_episode_caps_the_doubling_there(self):
        self.assertEqual([train.episode_length(e, 3000, 12000) for e in range(8)],
                         [3000, 3000, 6000, 6000, 12000, 12000, 12000, 12000])
        # 160 episodes: 3,000 x 2 + 6,000 x 2 + 12,000 x 156.
        self.assertEqual(train.schedule_steps(160, 3000, 12000), 1_890_000)

    def test_the_learning_rate_falls_linearly_to_0_over_the_schedule_or_stays(self):
        self.assertEqual(train.lr_fraction(0, 1_986_000, "linear"), 1.0)
        self.assertAlmostEqual(train.lr_fraction(496_500, 1_986_000, "linear"), 0.75)
        self.assertEqual(train.lr_fraction(1_986_000, 1_986_000, "linear"), 0.0)
        self.assertEqual(train.lr_fraction(2_100_000, 1_986_000, "linear"), 0.0)  # episodes in flight at the end
        self.assertEqual(train.lr_fraction(1_500_000, 1_986_000, "constant"), 1.0)
        self.assertEqual(train.lr_fraction(0, 0, "linear"), 1.0)  # --episodes 0: imitation alone, no schedule

    def test_the_temperature_falls_linearly_from_1_to_the_end_and_stays(self):
        self.assertEqual(train.temperature(0, 0, 1_986_000, 0.1), 1.0)
        self.assertAlmostEqual(train.temperature(993_000, 0, 1_986_000, 0.1), 0.55)
        self.assertAlmostEqual(train.temperature(1_986_000, 0, 1_986_000, 0.1), 0.1)
        self.assertAlmostEqual(train.temperature(2_100_000, 0, 1_986_000, 0.1), 0.1)  # episodes in flight at the end
        self.assertEqual(train.temperature(500_000, 0, 1_986_000, 1.0), 1.0)  # the default: no sharpening
        # Over the last 10 of 40 episodes (of 60,000 steps each): 1 through the first 30's 1,386,000
        # steps, 0.65 halfway through the last 10, 0.3 at the end.
        self.assertEqual(train.schedule_steps(30), 1_386_000)
        self.assertEqual(train.temperature(1_386_000, 1_386_000, 1_986_000, 0.3), 1.0)
        self.assertAlmostEqual(train.temperature(1_686_000, 1_386_000, 1_986_000, 0.3), 0.65)
        self.assertAlmostEqual(train.temperature(1_986_000, 1_386_000, 1_986_000, 0.3), 0.3)


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class ProbeTest(unittest.TestCase):
    """probe.py against the real environment (bin/kairos-lab rl env), on networks whose choices are known."""

    def test_it_reports_what_the_network_chose_read_back_from_its_file(self):
        env = ke.Env([os.path.join(ROOT, "bin", "kairos-lab"), "rl", "env"])
        try:
            with tempfile.TemporaryDirectory() as d:
                # Batches of one wherever a request waits, read back from the network file.
                train.export(certain(infer=True), d, "ones.krln")
                ones = probe.probe(probe.network(os.path.join(d, "ones.krln")), env, 600, 3)
                self.assertEqual(set(ones.batches), {1})
                self.assertEqual(ones.mean_batch(), 1.0)
                self.assertEqual(sum(ones.infers_per_step.values()), 600)
                self.assertEqual(sum(k * v for k, v in ones.infers_per_step.items()), ones.batches[1])
                self.assertEqual(len(ones.pending), ones.batches[1])
                self.assertGreater(ones.answer.ok, 0)
                # A network that always waits starts nothing and meets nothing.
                waits = probe.probe(certain(infer=False), env, 600, 3)
                self.assertEqual(sum(waits.batches.values()), 0)
                self.assertEqual(waits.infers_per_step, {0: 600})
                self.assertEqual(waits.answer.ok, 0)
                self.assertIn("0.00 % of SLOs as served", waits.report("waits"))
        finally:
            env.close()


class TrainingSmokeTest(unittest.TestCase):
    def test_a_bad_setting_is_refused_with_one_line_naming_it(self):
        # Refused by the argument check, before any environment starts.
        for args, message in ((["--explore-batch", "2"], "--explore-batch must be a probability in [0, 1], got 2"),
                              (["--explore", "-0.1"], "--explore must be a probability in [0, 1], got -0.1"),
                              (["--sharpen", "0"], "--sharpen must be a temperature in (0, 1], got 0")):
            run = subprocess.run([sys.executable, os.path.join(ROOT, "testbed", "rl", "train.py")] + args,
                                 cwd=ROOT, capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stderr.strip().splitlines()[-1], "train.py: error: " + message)

    def test_a_short_training_writes_its_curve_and_a_network_the_java_reader_takes(self):
        # Two episodes of 300 steps, rollouts of 128 steps: four PPO updates on the thesis' setup.
        with tempfile.TemporaryDirectory() as d:
            run = subprocess.run([sys.executable, os.path.join(ROOT, "testbed", "rl", "train.py"), "--envs", "1",
                                  "--env-command", os.path.join(ROOT, "bin", "kairos-lab") + " rl env",
                                  "--episodes", "2", "--episode-steps", "300", "--rollout", "128", "--minibatch", "64",
                                  "--epochs", "2", "--test-steps", "300", "--out", d], cwd=ROOT, capture_output=True, text=True, timeout=1200)
            self.assertEqual(run.returncode, 0, run.stderr[-2000:])
            rows = list(csv.DictReader(open(os.path.join(d, "training.csv"))))
            self.assertEqual([(r["episode"], r["steps"]) for r in rows], [("1", "300"), ("2", "300")])
            # Tested as it serves after the first episode, the network, leaning to null, infers
            # nowhere: its argmax serves nothing, where its sampled policy met requests.
            self.assertEqual(rows[0]["test_attainment"], "0.00000")
            self.assertGreater(float(rows[0]["attainment"]), 0.5)
            # Each episode's workload, as the environment answered it: its default, the thesis'.
            self.assertEqual({(r["models"], r["rate"], r["slo_ms"]) for r in rows}, {("48", "2400", "24")})
            for r in rows:
                # 2,400 requests/s, 6 steps per ms: 300 steps are 50 ms, about 120 requests.
                self.assertGreater(int(r["ok"]) + int(r["late"]) + int(r["dropped"]), 50)
            for name in ("policy.krln", "best.krln"):
                layers = network_file.read(os.path.join(d, name)).layers
                self.assertEqual([w.shape for w, _, _ in layers], [(64, ke.STATE_SIZE), (64, 64), (ke.MASK_SIZE, 64)])

    def test_across_workloads_the_critic_sees_each_episodes_own(self):
        # Episodes drawn from 2 x 2 workloads; the curve names each episode's as the environment
        # draws it for the episode's seed (the seed times 1,000 plus the episode's index).
        command = [os.path.join(ROOT, "bin", "kairos-lab"), "rl", "env", "--models", "12,48", "--rate", "600,2400"]
        with tempfile.TemporaryDirectory() as d:
            run = subprocess.run([sys.executable, os.path.join(ROOT, "testbed", "rl", "train.py"), "--envs", "2",
                                  "--env-command", " ".join(command[:3]), "--env-args", " ".join(command[3:]), "--critic-workload",
                                  "--episodes", "4", "--episode-steps", "150", "--rollout", "128", "--minibatch", "64",
                                  "--epochs", "1", "--seed", "7", "--out", d], cwd=ROOT, capture_output=True, text=True, timeout=1200)
            self.assertEqual(run.returncode, 0, run.stderr[-2000:])
            rows = list(csv.DictReader(open(os.path.join(d, "training.csv"))))
            self.assertGreaterEqual(len(rows), 4)
            env = ke.Env(command)  # the environment asked directly
            try:
                for r in rows:
                    models, rate, slo = env.workload(7000 + int(r["episode"]) - 1)
                    self.assertEqual((r["models"], r["rate"], r["slo_ms"]), ("%g" % models, "%g" % rate, "%g" % slo))
            finally:
                env.close()
            self.assertEqual(tuple(torch.load(os.path.join(d, "policy.pt"))["critic.0.weight"].shape), (64, ke.STATE_SIZE + train.WORKLOAD_SIZE))
            self.assertEqual([w.shape for w, _, _ in network_file.read(os.path.join(d, "policy.krln")).layers][0], (64, ke.STATE_SIZE))


if __name__ == "__main__":
    unittest.main()
