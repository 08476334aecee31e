"""The Kairos Avro schemas, read from their self-contained copies, and plain Avro binary in and out.

Every Kairos topic carries the plain Avro binary encoding of one record, no header; the schemas are
the repository's ``schemas/standalone/*.avsc`` (each file defines every type it uses, so that it
parses alone), or the binary distribution's ``schemas/``. ``KAIROS_SCHEMAS`` names another folder
holding them.
"""

import io
import os
import struct

import avro.io
import avro.schema

#: The records a client reads or writes.
NAMES = ("InferenceRequest", "InferenceResult", "Tensor", "BatchTelemetry", "ControlDecision", "DecisionOutcome")

_HERE = os.path.dirname(os.path.abspath(__file__))
_cache = {}


def schema_dir():
    """Where the .avsc files are: $KAIROS_SCHEMAS, else schemas/standalone of the checkout this package sits in
    (clients/python/kairos_client), else schemas/ of the binary distribution it sits in (python/kairos_client)."""
    if os.environ.get("KAIROS_SCHEMAS"):
        return os.environ["KAIROS_SCHEMAS"]
    checkout = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "schemas", "standalone"))
    distribution = os.path.normpath(os.path.join(_HERE, "..", "..", "schemas"))
    if not os.path.isdir(checkout) and os.path.isfile(os.path.join(distribution, "InferenceRequest.avsc")):
        return distribution
    return checkout


def schema(name):
    """The parsed schema of record ``name`` (one of NAMES), each file parsed on its own."""
    if name not in NAMES:
        raise ValueError("no Kairos schema %r; there are %s" % (name, ", ".join(NAMES)))
    if name not in _cache:
        path = os.path.join(schema_dir(), name + ".avsc")
        with open(path, encoding="utf-8") as f:
            parsed = avro.schema.parse(f.read())
        _cache[name] = (parsed, avro.io.DatumWriter(parsed), avro.io.DatumReader(parsed))
    return _cache[name][0]


def encode(name, record):
    """The plain Avro binary encoding of ``record`` (a dict) as a ``name``."""
    schema(name)
    out = io.BytesIO()
    _cache[name][1].write(record, avro.io.BinaryEncoder(out))
    return out.getvalue()


class MalformedRecord(ValueError):
    """Bytes that are not one record of the expected schema."""


def decode(name, data):
    """The record (a dict) that ``data`` encodes as a ``name``; MalformedRecord if it is not one."""
    schema(name)
    buf = io.BytesIO(data)
    try:
        record = _cache[name][2].read(avro.io.BinaryDecoder(buf))
    except Exception as e:  # python-avro raises many kinds on bad bytes
        raise MalformedRecord("not a %s: %s: %s" % (name, type(e).__name__, e)) from e
    if buf.tell() != len(data):
        raise MalformedRecord("not a %s: %d trailing bytes after the record" % (name, len(data) - buf.tell()))
    return record


def frame(schema_id, record_bytes):
    """``record_bytes`` in a schema registry's wire format: magic byte 0, the schema id (4 bytes, big-endian), the record.

    What Confluent's Avro serializers write; the job reads it when it knows the id
    (serve --registry-schema-id, or its registry with --schema-registry-url).
    """
    if not 0 <= schema_id < 2 ** 31:
        raise ValueError("a schema id is an int from 0 to 2^31-1, got %r" % (schema_id,))
    return struct.pack(">bI", 0, schema_id) + record_bytes
