"""A Kairos client on confluent-kafka: requests from numpy arrays, results into numpy."""

import collections
import logging
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from . import schemas
from .tensors import from_tensor, to_tensor

#: Producer settings for the request path, as the Java client's: a request leaves at once, and is acknowledged by every in-sync replica.
PRODUCER_DEFAULTS = {"linger.ms": 0, "acks": "all", "enable.idempotence": True}
#: Consumer settings for the result path: a fetch returns as soon as one result is there; only committed results (exactly-once jobs).
CONSUMER_DEFAULTS = {"fetch.wait.max.ms": 10, "enable.auto.commit": False, "isolation.level": "read_committed", "auto.offset.reset": "latest"}
#: Results kept for ids nobody has asked for yet; the oldest are dropped beyond it.
MAX_UNCLAIMED = 100_000

_log = logging.getLogger("kairos_client")


class Result:
    """One InferenceResult: status (OK, LATE, DROPPED, REJECTED, FAILED, EARLY), reason, output as a numpy array (or None), timings in microseconds."""

    def __init__(self, record):
        self.record = record
        self.request_id = record["request_id"]
        self.tenant = record["tenant"]
        self.model = record["model"]
        self.status = record["status"]
        self.reason = record["reason"]
        self.output = None if record["output"] is None else from_tensor(record["output"])
        self.batch_size = record["batch_size"]
        self.device = record["device"]
        self.cold_start = record["cold_start"]
        self.slo_ms = record["slo_ms"]
        self.window_start_ms = record.get("window_start_ms")
        self.timings = record["timings"]

    @property
    def ok(self):
        """Served by its deadline (and, with a window, not before its start)."""
        return self.status == "OK"

    @property
    def latency_ms(self):
        """From the client's send to the job's result."""
        return (self.timings["emitted"] - self.timings["sent"]) / 1000.0

    def __repr__(self):
        return "Result(%s %s%s, model %s, batch %d, %.1f ms)" % (
            self.request_id, self.status, "" if self.reason is None else ": " + self.reason, self.model, self.batch_size, self.latency_ms)


class KairosClient:
    """Sends inference requests to the requests topic and reads their results from the results topic.

    ``config`` is passed to both Kafka clients as it is (librdkafka's settings: ``security.protocol``,
    ``sasl.mechanism``, ``sasl.username``, ``ssl.ca.location``...), over the defaults above.
    Results are read from every partition of the results topic by assignment (no consumer group,
    no commits), from its end at construction: every result of a request sent afterwards is seen.
    ``schema_id``: frame each request for a schema registry under this id (magic byte 0, the id,
    the record), for a job started with ``serve --registry-schema-id``; None (default) sends plain
    Avro binary, which every job reads.

    Not thread-safe: use one from one thread.
    """

    def __init__(self, bootstrap_servers=None, config=None, requests_topic="kairos-requests", results_topic="kairos-results",
                 tenant="default", schema_id=None, read_results=True, timeout=10.0):
        common = dict(config or {})
        if bootstrap_servers is not None:
            common["bootstrap.servers"] = bootstrap_servers
        if "bootstrap.servers" not in common:
            raise ValueError("no bootstrap.servers: give bootstrap_servers or config['bootstrap.servers']")
        self.requests_topic = requests_topic
        self.results_topic = results_topic
        self.tenant = tenant
        self.schema_id = schema_id
        self._id_prefix = uuid.uuid4().hex[:8] + "-"
        self._sequence = 0
        self._unclaimed = collections.OrderedDict()
        self.delivery_errors = []
        self.failed_sends = 0
        self._failure_logged_at = None
        self.malformed_results = 0
        self.duplicate_results = 0
        self._producer = Producer({**PRODUCER_DEFAULTS, **common})
        self._consumer = None
        if read_results:
            consumer = Consumer({**CONSUMER_DEFAULTS, "group.id": "kairos-client-" + uuid.uuid4().hex[:8], **common})
            try:
                metadata = consumer.list_topics(results_topic, timeout=timeout)
                topic = metadata.topics.get(results_topic)
                if topic is None or topic.error is not None or not topic.partitions:
                    raise KafkaException("results topic %r has no partitions on the brokers (does it exist?)%s"
                                         % (results_topic, "" if topic is None or topic.error is None else ": %s" % topic.error))
                positions = []
                for p in sorted(topic.partitions):
                    _, high = consumer.get_watermark_offsets(TopicPartition(results_topic, p), timeout=timeout)
                    positions.append(TopicPartition(results_topic, p, high))
                consumer.assign(positions)
            except BaseException:
                consumer.close()
                raise
            self._consumer = consumer

    # -- requests

    def next_id(self):
        """A fresh request id: this client's random prefix and a sequence number."""
        self._sequence += 1
        return "%s%d" % (self._id_prefix, self._sequence - 1)

    def request(self, model, array, slo_ms, request_id=None, tenant=None, pipeline_id=None, stage=None, window_start_ms=None):
        """The InferenceRequest record (a dict) for one sample ``array`` (its shape without a batch dimension), stamped now.

        ``window_start_ms``: a window SLO, the answer wanted no earlier than this after the send (and no later than ``slo_ms``)."""
        return {
            "request_id": request_id if request_id is not None else self.next_id(),
            "tenant": tenant if tenant is not None else self.tenant,
            "model": model,
            "input": to_tensor(array),
            "sent_at_micros": time.time_ns() // 1000,  # the SLO counts from here: the job's clock should agree (NTP)
            "slo_ms": float(slo_ms),
            "pipeline_id": pipeline_id,
            "stage": stage,
            "window_start_ms": None if window_start_ms is None else float(window_start_ms),
        }

    def send(self, model, array, slo_ms, request_id=None, tenant=None, pipeline_id=None, stage=None, window_start_ms=None):
        """Sends one request for ``model`` with input ``array`` and an SLO of ``slo_ms`` (a window SLO with ``window_start_ms``); returns its id (the key of its result)."""
        record = self.request(model, array, slo_ms, request_id, tenant, pipeline_id, stage, window_start_ms)
        value = schemas.encode("InferenceRequest", record)
        if self.schema_id is not None:
            value = schemas.frame(self.schema_id, value)
        self.send_bytes(value, key=record["request_id"])
        return record["request_id"]

    def send_bytes(self, value, key=None):
        """Sends ``value`` to the requests topic as it is, keyed by ``key`` (str or bytes): e.g. a record encoded elsewhere."""
        if isinstance(key, str):
            key = key.encode("utf-8")
        self._producer.produce(self.requests_topic, value=value, key=key, on_delivery=self._delivered)
        self._producer.poll(0)

    def _delivered(self, error, message):
        # librdkafka retries a send through a broker's death (the partition's new leader takes it,
        # idempotence keeps it single); an error here means it gave up on the request for good.
        if error is not None:
            self.delivery_errors.append(error)
            self.failed_sends += 1
            now = time.monotonic()
            # Said when it happens, not only at the next flush: the first, then at most once a second.
            if self._failure_logged_at is None or now - self._failure_logged_at >= 1.0:
                self._failure_logged_at = now
                _log.warning("%s not delivered and the producer gave up on %s (%s)",
                             "request %s was" % _key_text(message) if self.failed_sends == 1 else "%d requests so far were" % self.failed_sends,
                             "it" if self.failed_sends == 1 else "them", error)

    def flush(self, timeout=10.0):
        """Waits until every request sent is acknowledged or failed; raises KafkaException with the first failure since the last flush."""
        left = self._producer.flush(timeout)
        if left:
            raise KafkaException("%d requests not delivered within %.0f s" % (left, timeout))
        if self.delivery_errors:
            first, self.delivery_errors = self.delivery_errors[0], []
            raise KafkaException(first)

    # -- results

    def poll(self, timeout=0.1):
        """Reads what results arrived within ``timeout`` seconds, keeps them until asked for, and returns them."""
        if self._consumer is None:
            raise RuntimeError("this client does not read results (read_results=False)")
        fresh = []
        for message in self._consumer.consume(num_messages=1000, timeout=timeout):
            if message.error() is not None:
                continue  # e.g. the end of a partition; a real error shows up again in the next consume
            try:
                result = Result(schemas.decode("InferenceResult", message.value()))
            except (schemas.MalformedRecord, ValueError, TypeError):
                self.malformed_results += 1  # not a result of this schema: skip it
                continue
            if result.request_id in self._unclaimed:
                self.duplicate_results += 1  # at-least-once delivery may repeat a result: the first stands
                continue
            self._unclaimed[result.request_id] = result
            if len(self._unclaimed) > MAX_UNCLAIMED:
                self._unclaimed.popitem(last=False)
            fresh.append(result)
        return fresh

    def result(self, request_id, timeout=10.0):
        """The result of ``request_id``, waiting up to ``timeout`` seconds for it; TimeoutError if it does not come."""
        return self.results([request_id], timeout)[request_id]

    def results(self, request_ids, timeout=10.0):
        """The results of all ``request_ids`` (a dict by id), waiting up to ``timeout`` seconds in all; TimeoutError naming the missing ones."""
        wanted = list(dict.fromkeys(request_ids))
        deadline = time.monotonic() + timeout
        while True:
            missing = [i for i in wanted if i not in self._unclaimed]
            if not missing:
                return {i: self._unclaimed.pop(i) for i in wanted}
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no result within %.1f s for %d of %d requests: %s%s" % (
                    timeout, len(missing), len(wanted), ", ".join(missing[:5]), " ..." if len(missing) > 5 else ""))
            self.poll(min(left, 0.1))

    def await_serving(self, model, array, timeout=120.0, every=2.0):
        """Waits until the job answers a request of ``model`` with input ``array`` (whatever the result's status) and returns the seconds it took.

        A job just submitted reads only the requests sent after its sources have found their offsets, so one
        request (with an SLO of ``every`` seconds) is sent every ``every`` seconds until a result of one comes.
        TimeoutError if none comes within ``timeout`` seconds."""
        start = time.monotonic()
        sent = []
        while True:
            sent.append(self.send(model, array, every * 1000))
            self.flush(timeout)
            until = min(start + timeout, time.monotonic() + every)
            while time.monotonic() < until:
                self.poll(0.1)
                if any(i in self._unclaimed for i in sent):
                    for i in sent:
                        self._unclaimed.pop(i, None)
                    return time.monotonic() - start
            if time.monotonic() - start >= timeout:
                raise TimeoutError("no answer from the job within %.0f s to %d requests of %s on %s: is it running, on this broker?"
                                   % (timeout, len(sent), model, self.requests_topic))

    def infer(self, model, array, slo_ms, timeout=10.0, **fields):
        """Sends one request and waits for its result (a Result; its output is a numpy array when the model gives one)."""
        request_id = self.send(model, array, slo_ms, **fields)
        self.flush(timeout)
        return self.result(request_id, timeout)

    def close(self):
        self._producer.flush(10)
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _key_text(message):
    key = message.key() if message is not None else None
    return "(no key)" if key is None else key.decode("utf-8", "replace")
