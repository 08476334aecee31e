"""What the client says when a request cannot be delivered, without a broker."""

import socket
import unittest

import numpy as np
from confluent_kafka import KafkaException

from kairos_client import KairosClient


def _closed_port():
    # A port that was free a moment ago: nothing listens there, so every connection is refused.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DeliveryTest(unittest.TestCase):
    def test_a_request_given_up_on_is_logged_when_it_happens_and_raised_at_flush(self):
        servers = "127.0.0.1:%d" % _closed_port()
        # No broker ever answers: librdkafka retries until message.timeout.ms, then gives up.
        client = KairosClient(servers, read_results=False, config={"message.timeout.ms": 500, "log_level": 0})
        try:
            request_id = client.send("mlp", np.zeros(64, dtype=np.float32), slo_ms=100)
            with self.assertLogs("kairos_client", "WARNING") as logged:
                with self.assertRaises(KafkaException):
                    client.flush(timeout=10)
            self.assertEqual(len(logged.records), 1)
            self.assertIn("request %s was not delivered and the producer gave up on it" % request_id, logged.output[0])
            self.assertEqual(client.failed_sends, 1)
        finally:
            client.close()


if __name__ == "__main__":
    unittest.main()
