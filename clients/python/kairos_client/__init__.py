"""A Python client of Kairos: inference requests from numpy arrays, results into numpy.

    from kairos_client import KairosClient
    with KairosClient("127.0.0.1:9092") as kairos:
        result = kairos.infer("mlp", numpy.zeros(64, numpy.float32), slo_ms=100)
        print(result.status, result.output)

Runs on Debian's python3-avro, python3-confluent-kafka and python3-numpy.
"""

from .client import KairosClient, Result
from .schemas import MalformedRecord, decode, encode, frame, schema
from .tensors import DTYPES, dtype_symbol, from_tensor, to_tensor

__all__ = ["KairosClient", "Result", "MalformedRecord", "decode", "encode", "frame", "schema",
           "DTYPES", "dtype_symbol", "from_tensor", "to_tensor"]
