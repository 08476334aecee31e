"""Kairos records on the command line, for kcat and shell scripts.

  python3 -m kairos_client request --model mlp --zeros FLOAT32:64 --slo-ms 100 --id r1 > request.avro
  python3 -m kairos_client request --model cnn --npy image.npy --slo-ms 100 > request.avro
  kcat ... -f '%s' -c 1 | python3 -m kairos_client decode InferenceResult

`request` writes one InferenceRequest (plain Avro binary, or framed with --schema-id) to stdout;
`decode` reads one record of the named schema from stdin and prints it as JSON, tensors as their values.
"""

import argparse
import json
import sys
import time

import numpy as np

from . import schemas
from .tensors import DTYPES, from_tensor, to_tensor


def _zeros(spec):
    dtype, _, shape = spec.partition(":")
    if dtype not in DTYPES:
        raise argparse.ArgumentTypeError("--zeros: dtype %r is none of %s" % (dtype, ", ".join(DTYPES)))
    try:
        dims = [int(d) for d in shape.split("x")] if shape else []
    except ValueError:
        raise argparse.ArgumentTypeError("--zeros: shape %r is not like 3x32x32" % shape)
    return np.zeros(dims, dtype=DTYPES[dtype])


def _jsonable(value):
    if isinstance(value, dict):
        if set(value) == {"dtype", "shape", "data"}:
            return {"dtype": value["dtype"], "shape": value["shape"], "values": from_tensor(value).tolist()}
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m kairos_client", description="Kairos records for kcat and scripts.")
    commands = parser.add_subparsers(dest="command", required=True)
    request = commands.add_parser("request", help="write one InferenceRequest to stdout")
    request.add_argument("--model", required=True)
    source = request.add_mutually_exclusive_group(required=True)
    source.add_argument("--zeros", type=_zeros, metavar="DTYPE:SHAPE", help="an input of zeros, e.g. FLOAT32:3x32x32")
    source.add_argument("--npy", metavar="FILE", help="the input as a numpy .npy file (one sample: no batch dimension)")
    request.add_argument("--slo-ms", type=float, required=True)
    request.add_argument("--window-start-ms", type=float, default=None, help="a window SLO: the answer wanted no earlier than this after the send")
    request.add_argument("--id", default=None, help="request id (default: a time-based one)")
    request.add_argument("--tenant", default="default")
    request.add_argument("--schema-id", type=int, default=None, help="frame the record for a schema registry under this id")
    decode = commands.add_parser("decode", help="read one record from stdin and print it as JSON")
    decode.add_argument("schema", choices=schemas.NAMES)
    decode.add_argument("--framed", action="store_true", help="the record is framed for a schema registry (5-byte header)")
    args = parser.parse_args(argv)

    if args.command == "request":
        array = args.zeros if args.zeros is not None else np.load(args.npy)
        record = {"request_id": args.id or "cli-%d" % time.time_ns(), "tenant": args.tenant, "model": args.model,
                  "input": to_tensor(array), "sent_at_micros": time.time_ns() // 1000, "slo_ms": args.slo_ms,
                  "pipeline_id": None, "stage": None, "window_start_ms": args.window_start_ms}
        data = schemas.encode("InferenceRequest", record)
        sys.stdout.buffer.write(data if args.schema_id is None else schemas.frame(args.schema_id, data))
        return 0
    data = sys.stdin.buffer.read()
    if args.framed:
        data = data[5:]
    try:
        record = schemas.decode(args.schema, data)
    except schemas.MalformedRecord as e:
        print("python3 -m kairos_client: %s" % e, file=sys.stderr)
        return 1
    print(json.dumps(_jsonable(record)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
