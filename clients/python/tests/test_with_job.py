"""The Python client against a real Kairos: the serving job on a Kafka broker, started by tests/sandbox.py."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import numpy as np
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from kairos_client import KairosClient, schemas

from sandbox import REGISTERED_ID, SCHEMA_ID, Sandbox

SANDBOX = None
#: The same with a broker that speaks SASL_SSL only.
SECURE = None
#: Long enough for a loaded CI machine: these tests check what comes back, not how fast.
SLO_MS = 10_000


def setUpModule():
    global SANDBOX, SECURE
    # Both start at once: their start-ups overlap.
    SANDBOX, SECURE = Sandbox(), Sandbox(sasl_ssl=True)
    for sandbox in (SANDBOX, SECURE):
        sandbox.await_serving()
        print("sandbox serving on %s after %.1f s" % (sandbox.bootstrap_servers, sandbox.startup_seconds), file=sys.stderr)


def tearDownModule():
    for sandbox in (SANDBOX, SECURE):
        if sandbox is not None:
            sandbox.stop()


class ServedTest(unittest.TestCase):
    def setUp(self):
        self.kairos = KairosClient(SANDBOX.bootstrap_servers, tenant="python-test")

    def tearDown(self):
        self.kairos.close()

    def test_a_window_slo_is_held_until_its_window_and_echoed(self):
        # Wanted no earlier than 300 ms after the send: the job's scheduler holds it until 300 ms
        # less mlp's latency alone (well under 10 ms), so it is dispatched after 290 ms. On real
        # ONNX devices a batch faster than its profile ends EARLY, a miss with its reason.
        x = np.linspace(-1, 1, 64, dtype=np.float32)
        result = self.kairos.infer("mlp", x, SLO_MS, timeout=60, window_start_ms=300)
        self.assertIn(result.status, ("OK", "EARLY", "LATE"), result.reason)
        self.assertEqual(result.window_start_ms, 300.0)
        self.assertGreaterEqual(result.timings["dispatched"], result.timings["sent"] + 290_000)
        if result.status == "EARLY":
            self.assertIn("before its window start", result.reason)
        bad = self.kairos.infer("mlp", x, 100, timeout=60, window_start_ms=150)
        self.assertEqual(bad.status, "REJECTED")
        self.assertEqual(bad.reason, "window_start_ms 150.0 is after the deadline: over slo_ms 100.0")

    def test_numpy_in_numpy_out(self):
        x = np.linspace(-1, 1, 64, dtype=np.float32)
        result = self.kairos.infer("mlp", x, SLO_MS, timeout=60)
        self.assertIn(result.status, ("OK", "LATE"), result.reason)
        self.assertEqual(result.output.dtype, np.dtype("<f4"))
        self.assertEqual(result.output.shape, (10,))
        self.assertTrue(np.all(np.isfinite(result.output)))
        self.assertGreaterEqual(result.batch_size, 1)
        # The same input gives the same logits, whatever batch it ran in; another input other logits.
        again = self.kairos.infer("mlp", x.copy(), SLO_MS, timeout=60)
        np.testing.assert_allclose(again.output, result.output, rtol=1e-5, atol=1e-6)
        other = self.kairos.infer("mlp", -x, SLO_MS, timeout=60)
        self.assertFalse(np.allclose(other.output, result.output))

    def test_every_request_gets_its_own_result(self):
        rng = np.random.default_rng(1)
        inputs = {}
        for i in range(40):
            if i % 2:
                inputs[self.kairos.send("mlp", rng.random(64, dtype=np.float32), SLO_MS)] = ("mlp", (10,))
            else:
                inputs[self.kairos.send("cnn", rng.random((3, 32, 32), dtype=np.float32), SLO_MS)] = ("cnn", (10,))
        self.kairos.flush()
        results = self.kairos.results(inputs, timeout=90)
        self.assertEqual(set(results), set(inputs))
        for request_id, (model, shape) in inputs.items():
            r = results[request_id]
            self.assertEqual((r.request_id, r.model, r.tenant), (request_id, model, "python-test"))
            self.assertIn(r.status, ("OK", "LATE"), r.reason)
            self.assertEqual(r.output.shape, shape)
            t = r.timings
            self.assertLessEqual(t["sent"], t["exec_start"])
            self.assertLessEqual(t["exec_start"], t["exec_end"])
            self.assertLessEqual(t["exec_end"], t["emitted"])

    def test_bytes_that_are_no_request_are_rejected_under_their_key(self):
        self.kairos.send_bytes(b"\x01\x02 not a request", key="garbage-1")
        self.kairos.send_bytes(b'{"request_id": "j"}', key="json-1")
        self.kairos.flush()
        results = self.kairos.results(["garbage-1", "json-1"], timeout=60)
        self.assertEqual(results["garbage-1"].status, "REJECTED")
        self.assertRegex(results["garbage-1"].reason, r"^malformed request: .* \(record kairos-requests-0@\d+\)$")
        self.assertEqual(results["json-1"].status, "REJECTED")
        self.assertIn("JSON text", results["json-1"].reason)
        self.assertIsNone(results["json-1"].output)

    def test_a_tensor_the_model_does_not_take_is_rejected_naming_it(self):
        wrong_dtype = self.kairos.send("mlp", np.zeros(64, dtype=np.float64), SLO_MS)
        wrong_shape = self.kairos.send("mlp", np.zeros((1, 64), dtype=np.float32), SLO_MS)  # a batch dimension: the job batches itself
        unknown = self.kairos.send("no-such-model", np.zeros(64, dtype=np.float32), SLO_MS)
        results = self.kairos.results([wrong_dtype, wrong_shape, unknown], timeout=60)
        for r in results.values():
            self.assertEqual(r.status, "REJECTED")
        self.assertIn("FLOAT64", results[wrong_dtype].reason)
        self.assertIn("[1, 64]", results[wrong_shape].reason)
        self.assertIn("no-such-model", results[unknown].reason)


class SaslSslTest(unittest.TestCase):
    """librdkafka's settings pass through to both Kafka clients: a broker that only speaks SASL_SSL serves a client that has them."""

    def test_a_client_with_the_settings_is_served_and_one_with_a_wrong_password_refused(self):
        self.assertEqual(SECURE.client_config["security.protocol"], "SASL_SSL")
        with KairosClient(SECURE.bootstrap_servers, config=SECURE.client_config) as kairos:
            result = kairos.infer("mlp", np.ones(64, dtype=np.float32), SLO_MS, timeout=60)
        self.assertIn(result.status, ("OK", "LATE"), result.reason)
        self.assertEqual(result.output.shape, (10,))
        wrong = dict(SECURE.client_config, **{"sasl.password": "wrong"})
        with self.assertRaises(KafkaException):
            KairosClient(SECURE.bootstrap_servers, config=wrong, timeout=5).close()


class RegistryFramingTest(unittest.TestCase):
    """Records framed for a schema registry (magic byte 0, 4-byte schema id), as Confluent's Avro serializer writes them."""

    def test_a_given_id_and_one_the_registry_has_are_served_and_another_rejected_naming_it(self):
        with KairosClient(SANDBOX.bootstrap_servers, schema_id=SCHEMA_ID) as given, \
                KairosClient(SANDBOX.bootstrap_servers, schema_id=REGISTERED_ID, read_results=False) as registered, \
                KairosClient(SANDBOX.bootstrap_servers, schema_id=REGISTERED_ID + 1, read_results=False) as unknown:
            ids = [client.send("mlp", np.ones(64, dtype=np.float32), SLO_MS) for client in (given, registered, unknown)]
            registered.flush()
            unknown.flush()
            results = given.results(ids, timeout=60)
        for request_id in ids[:2]:
            self.assertIn(results[request_id].status, ("OK", "LATE"), results[request_id].reason)
            self.assertEqual(results[request_id].output.shape, (10,))
        refused = results[ids[2]]
        self.assertEqual(refused.status, "REJECTED")
        self.assertIn("schema id %d: the schema registry %s has no schema with that id (HTTP 404)" % (REGISTERED_ID + 1, SANDBOX.registry.url),
                      refused.reason)
        self.assertNotIn("/schemas/ids/%d" % SCHEMA_ID, SANDBOX.registry.asked, "a given id needs no look-up")


class ControlDecisionTest(unittest.TestCase):
    """A decision encoded from a dict by python-avro reaches the job as the action it is."""

    def test_an_assignment_written_from_a_dict_is_applied(self):
        writer = "python-" + uuid.uuid4().hex[:6]
        decision = {"version": 1, "issued_at_micros": time.time_ns() // 1000, "issued_by": writer, "key": None,
                    "action": {"model": "mlp", "group": "default", "assign_group": None}}
        producer = Producer({"bootstrap.servers": SANDBOX.bootstrap_servers, "acks": "all"})
        producer.produce("kairos-control", key=b"assign/mlp", value=schemas.encode("ControlDecision", decision))
        self.assertEqual(producer.flush(10), 0)
        outcome = read_outcome(writer, 1, timeout=60)
        self.assertEqual((outcome["status"], outcome["key"], outcome["reason"]), ("APPLIED", "assign/mlp", None))


def read_outcome(writer, version, timeout):
    """The DecisionOutcome of the writer's version from the outcomes topic (keyed by writer)."""
    consumer = Consumer({"bootstrap.servers": SANDBOX.bootstrap_servers, "group.id": "outcomes-" + uuid.uuid4().hex[:6], "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition("kairos-control-outcomes", 0, 0)])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            outcome = schemas.decode("DecisionOutcome", message.value())
            if outcome["writer"] == writer and outcome["version"] == version:
                return outcome
        raise TimeoutError("no outcome of %s version %d within %d s" % (writer, version, timeout))
    finally:
        consumer.close()


class ExampleTest(unittest.TestCase):
    def test_the_example_prints_a_class_for_each_input(self):
        example = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "classify.py")
        out = subprocess.run([sys.executable, example, "--bootstrap-servers", SANDBOX.bootstrap_servers, "--count", "5", "--slo-ms", str(SLO_MS)],
                             check=True, capture_output=True, text=True, timeout=120).stdout
        lines = out.splitlines()
        self.assertEqual(len(lines), 5, out)
        for line in lines:
            self.assertRegex(line, r"^\S+  (OK|LATE)\s+batch +\d+ +[\d.]+ ms  class \d  logits \[")


@unittest.skipUnless(shutil.which("kcat"), "kcat is not installed")
class KcatTest(unittest.TestCase):
    """What docs/clients.md shows for kcat: a request written to a file, produced as one message; results' keys and bytes read back."""

    def test_kcat_sends_a_request_and_reads_its_result(self):
        boot = SANDBOX.bootstrap_servers
        request_id = "kcat-" + uuid.uuid4().hex[:8]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "request.avro")
            env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            with open(path, "wb") as f:
                subprocess.run([sys.executable, "-m", "kairos_client", "request", "--model", "mlp", "--zeros", "FLOAT32:64",
                                "--slo-ms", str(SLO_MS), "--id", request_id], check=True, stdout=f, env=env, timeout=60)
            subprocess.run(["kcat", "-P", "-b", boot, "-t", "kairos-requests", "-k", request_id, path], check=True, timeout=60)
            deadline = time.monotonic() + 60
            offset = None
            while offset is None and time.monotonic() < deadline:
                listing = subprocess.run(["kcat", "-C", "-b", boot, "-t", "kairos-results", "-o", "beginning", "-e", "-q", "-f", "%o %k\\n"],
                                         check=True, capture_output=True, text=True, timeout=60).stdout
                offset = next((line.split()[0] for line in listing.splitlines() if line.split()[1:] == [request_id]), None)
                if offset is None:
                    time.sleep(0.5)
            self.assertIsNotNone(offset, "no result keyed %s on kairos-results" % request_id)
            value = subprocess.run(["kcat", "-C", "-b", boot, "-t", "kairos-results", "-p", "0", "-o", offset, "-c", "1", "-e", "-q", "-f", "%s"],
                                   check=True, capture_output=True, timeout=60).stdout
            decoded = subprocess.run([sys.executable, "-m", "kairos_client", "decode", "InferenceResult"], input=value,
                                     check=True, capture_output=True, env=env, timeout=60).stdout.decode()
        result = schemas.decode("InferenceResult", value)
        self.assertEqual(result["request_id"], request_id)
        self.assertIn(result["status"], ("OK", "LATE"), result["reason"])
        self.assertIn('"request_id": "%s"' % request_id, decoded)
        self.assertIn('"output": {"dtype": "FLOAT32", "shape": [10], "values": [', decoded)


if __name__ == "__main__":
    unittest.main()
