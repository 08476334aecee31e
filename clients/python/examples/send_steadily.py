#!/usr/bin/env python3
"""Send requests at a steady rate for a while, and say how many were sent and how many given up on.

    clients/python/examples/send_steadily.py --bootstrap-servers 127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094 \\
        --rate 100 --duration 30 --id-prefix py-

Kill a broker meanwhile (infra/cluster up --ha; infra/fault-suite --ha does): the producer sends on
to each partition's new leader, retrying what the dead broker had not acknowledged, so every
request is delivered once. A request the producer gives up on (a warning, when it happens) makes
the exit code 1. Its ids are PREFIX0, PREFIX1, ... in send order, for `bin/kairos-lab check-results`.
"""

import argparse
import logging
import os
import sys
import time

import numpy as np
from confluent_kafka import KafkaException

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kairos_client import KairosClient  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bootstrap-servers", default="127.0.0.1:9092")
    parser.add_argument("--kafka-property", action="append", default=[], metavar="KEY=VALUE", help="a librdkafka setting")
    parser.add_argument("--model", default="mlp", help="default: mlp, which takes FLOAT32[64]")
    parser.add_argument("--shape", default="64", help="the model's input shape, e.g. 3x32x32 (default: 64)")
    parser.add_argument("--rate", type=float, default=100, help="requests per second (default: 100)")
    parser.add_argument("--duration", type=float, default=10, help="seconds (default: 10)")
    parser.add_argument("--slo-ms", type=float, default=2000)
    parser.add_argument("--id-prefix", default=None, help="name the requests PREFIX0, PREFIX1, ... (default: the client's random prefix)")
    args = parser.parse_args()
    if args.rate <= 0 or args.duration <= 0:
        parser.error("--rate and --duration must be positive")
    logging.basicConfig(format="send_steadily: %(message)s", level=logging.WARNING)
    config = dict(p.split("=", 1) for p in args.kafka_property)
    x = np.zeros([int(d) for d in args.shape.split("x")], dtype=np.float32)

    with KairosClient(args.bootstrap_servers, config=config, read_results=False) as kairos:
        print("send_steadily: %s at %g/s for %g s to %s" % (args.model, args.rate, args.duration, args.bootstrap_servers), flush=True)
        start = time.monotonic()
        sent = 0
        while sent < args.rate * args.duration:
            wait = start + sent / args.rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            request_id = None if args.id_prefix is None else "%s%d" % (args.id_prefix, sent)
            kairos.send(args.model, x, args.slo_ms, request_id=request_id)
            sent += 1
        undelivered = None
        try:
            kairos.flush(timeout=150)  # past librdkafka's default delivery timeout of 120 s
        except KafkaException as e:  # the first failure, or requests still not delivered
            undelivered = e
        print("sent %d requests, %d given up on%s" % (sent, kairos.failed_sends, "" if undelivered is None else " (%s)" % undelivered), flush=True)
    return 1 if undelivered is not None else 0


if __name__ == "__main__":
    sys.exit(main())
