#!/usr/bin/env python3
"""Send a few inputs to a Kairos model and print what comes back: numpy in, numpy out.

    bin/kairos sandbox --onnx                                # in one terminal: a broker and the job (prints bootstrap.servers=...)
    clients/python/examples/classify.py --bootstrap-servers 127.0.0.1:PORT

From the binary distribution, against a job submitted with --model-repository models:

    python3 python/examples/classify.py --bootstrap-servers broker:9092

It first waits until the job answers (--wait), since a job just submitted reads only the requests
sent after its sources have found their offsets.

Against a cluster with SASL/TLS, give librdkafka's settings with --kafka-property (repeatable),
e.g. --kafka-property security.protocol=SASL_SSL --kafka-property sasl.mechanism=SCRAM-SHA-512 ...
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kairos_client import KairosClient  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bootstrap-servers", default="127.0.0.1:9092")
    parser.add_argument("--kafka-property", action="append", default=[], metavar="KEY=VALUE", help="a librdkafka setting for both clients")
    parser.add_argument("--model", default="mlp", help="default: mlp, which takes FLOAT32[64] and gives 10 logits")
    parser.add_argument("--shape", default="64", help="the model's input shape, without a batch dimension, e.g. 3x32x32 (default: 64)")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--slo-ms", type=float, default=100)
    parser.add_argument("--wait", type=float, default=120, metavar="SECONDS",
                        help="first wait this long at most for the job to answer (a job just submitted is still starting); 0: do not wait")
    args = parser.parse_args()
    config = dict(p.split("=", 1) for p in args.kafka_property)
    shape = [int(d) for d in args.shape.split("x")]
    rng = np.random.default_rng(0)

    with KairosClient(args.bootstrap_servers, config=config) as kairos:
        if args.wait > 0:
            took = kairos.await_serving(args.model, np.zeros(shape, np.float32), timeout=args.wait)
            print("the job answers (waited %.1f s)" % took, file=sys.stderr)
        # Send them all first: the job batches requests that are waiting together.
        inputs = {kairos.send(args.model, x, args.slo_ms): x for x in rng.random([args.count] + shape, dtype=np.float32)}
        kairos.flush()
        results = kairos.results(inputs, timeout=30)
    for request_id, result in results.items():
        if result.output is None:
            print("%s  %-8s %s" % (request_id, result.status, result.reason))
        else:
            print("%s  %-8s batch %2d  %6.1f ms  class %d  logits %s" % (
                request_id, result.status, result.batch_size, result.latency_ms, int(np.argmax(result.output)),
                np.array2string(result.output[:4], precision=2) + " ..."))


if __name__ == "__main__":
    main()
