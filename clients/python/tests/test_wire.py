"""The schemas, tensors and framing of the Python client, without a broker."""

import glob
import os
import struct
import unittest

import avro.schema
import numpy as np

from kairos_client import schemas
from kairos_client.tensors import DTYPES, dtype_symbol, from_tensor, to_tensor


class SchemasTest(unittest.TestCase):
    def test_each_public_schema_parses_alone(self):
        files = sorted(glob.glob(os.path.join(schemas.schema_dir(), "*.avsc")))
        self.assertEqual(sorted(os.path.basename(f)[:-5] for f in files), sorted(schemas.NAMES))
        for f in files:
            with open(f, encoding="utf-8") as text:
                parsed = avro.schema.parse(text.read())  # no Names shared between files
            self.assertEqual(parsed.fullname, "io.kairos.schema." + os.path.basename(f)[:-5])

    def test_a_request_round_trips_and_its_bytes_are_avro_binary(self):
        record = {"request_id": "r1", "tenant": "t", "model": "mlp",
                  "input": {"dtype": "FLOAT32", "shape": [2], "data": b"\x00\x00\x80\x3f\x00\x00\x00\x40"},
                  "sent_at_micros": 1, "slo_ms": 50.0, "pipeline_id": None, "stage": None, "window_start_ms": None}
        data = schemas.encode("InferenceRequest", record)
        # Worked by hand: "r1" (length 2 as zig-zag 4), "t", "mlp", dtype 0, one block of one long 2 then 0, 8 bytes, 1 (zig-zag 2),
        # 50.0 as a little-endian double, three nulls (union index 0).
        expected = (b"\x04r1" + b"\x02t" + b"\x06mlp" + b"\x00" + b"\x02\x04\x00" + b"\x10" + b"\x00\x00\x80\x3f\x00\x00\x00\x40"
                    + b"\x02" + struct.pack("<d", 50.0) + b"\x00\x00\x00")
        self.assertEqual(data, expected)
        self.assertEqual(schemas.decode("InferenceRequest", data), record)
        # A window SLO: its union's second branch (index 1, zig-zag 2), then the double.
        windowed = dict(record, window_start_ms=20.0)
        self.assertEqual(schemas.encode("InferenceRequest", windowed), expected[:-1] + b"\x02" + struct.pack("<d", 20.0))
        self.assertEqual(schemas.decode("InferenceRequest", schemas.encode("InferenceRequest", windowed)), windowed)

    def test_bytes_that_are_no_record_are_malformed(self):
        with self.assertRaises(schemas.MalformedRecord):
            schemas.decode("InferenceResult", b"\x01\x02")
        data = schemas.encode("Tensor", {"dtype": "INT8", "shape": [], "data": b"\x05"})
        with self.assertRaisesRegex(schemas.MalformedRecord, "1 trailing bytes"):
            schemas.decode("Tensor", data + b"\x00")

    def test_framing_is_the_magic_byte_and_the_id_big_endian(self):
        self.assertEqual(schemas.frame(0x01020304, b"\x09"), b"\x00\x01\x02\x03\x04\x09")
        with self.assertRaises(ValueError):
            schemas.frame(-1, b"")


class ControlActionsTest(unittest.TestCase):
    """python-avro writes a dict as the first union branch whose field names include all of the dict's keys."""

    def decision(self, action):
        return {"version": 1, "issued_at_micros": 1, "issued_by": "python", "key": None, "action": action}

    def branch(self, action):
        data = schemas.encode("ControlDecision", self.decision(action))
        back = schemas.decode("ControlDecision", data)
        self.assertEqual(back["action"], action)
        # version 1, issued_at 1, "python", null key: 1 + 1 + 7 + 1 bytes, then the union index (zig-zag).
        return data[10] // 2

    def test_each_action_is_written_as_its_own_branch(self):
        self.assertEqual(self.branch({"group": "g", "model": None, "policy": "flex", "params": {"lambda": "2"}}), 0)
        self.assertEqual(self.branch({"group": "g", "devices": [{"device": 0, "models": ["mlp"]}]}), 1)
        self.assertEqual(self.branch({"model": "mlp", "group": "g", "assign_group": None}), 2)
        pipeline = {"pipeline": "cascade", "slo_p99_ms": 80.0,
                    "stages": [{"name": "fast", "model": "classifier", "budget_ms": None, "input": None},
                               {"name": "slow", "model": "cnn", "budget_ms": 40.0, "input": "request"}],
                    "edges": [{"from": "fast", "to": "slow", "probability": 0.3,
                               "when": {"output_max_below": 0.8, "output_argmax_in": None}}]}
        self.assertEqual(self.branch(pipeline), 4)
        self.assertEqual(self.branch({"pipeline": "cascade", "remove_pipeline": None}), 5)

    def test_an_assignment_without_its_own_field_is_taken_for_a_policy(self):
        # Why AssignGroup has assign_group: without it, {model, group} fits SetPolicy first.
        with self.assertRaises(Exception):
            schemas.encode("ControlDecision", self.decision({"model": "mlp", "group": "g"}))


class TensorsTest(unittest.TestCase):
    def test_every_kairos_dtype_round_trips(self):
        for symbol, dtype in DTYPES.items():
            array = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
            tensor = to_tensor(array)
            self.assertEqual(tensor["dtype"], symbol)
            self.assertEqual(tensor["shape"], [2, 3])
            self.assertEqual(len(tensor["data"]), 6 * dtype.itemsize)
            back = from_tensor(tensor)
            self.assertEqual(back.dtype, dtype)
            np.testing.assert_array_equal(back, array)

    def test_bytes_are_little_endian_and_row_major_whatever_the_array(self):
        big_endian = np.array([1.0, 2.0], dtype=">f4")
        self.assertEqual(to_tensor(big_endian)["data"], b"\x00\x00\x80\x3f\x00\x00\x00\x40")
        transposed = np.array([[1, 2], [3, 4]], dtype=np.int32).T  # a view in column order
        self.assertEqual(to_tensor(transposed)["data"], struct.pack("<4i", 1, 3, 2, 4))
        self.assertEqual(to_tensor(np.array([True, False]))["data"], b"\x01\x00")
        self.assertEqual(to_tensor(np.int64(7))["shape"], [])

    def test_a_dtype_kairos_lacks_is_refused_naming_the_ones_it_has(self):
        with self.assertRaisesRegex(ValueError, "complex64 has no Kairos tensor type; Kairos has FLOAT32"):
            dtype_symbol(np.complex64)
        self.assertEqual(dtype_symbol(np.float16), "FLOAT16")
        self.assertEqual(to_tensor(np.array([1.0, -2.0], dtype=np.float16))["data"], b"\x00\x3c\x00\xc0")
        with self.assertRaisesRegex(ValueError, "holds 8 bytes, not 12"):
            from_tensor({"dtype": "FLOAT32", "shape": [3], "data": b"\x00" * 8})


if __name__ == "__main__":
    unittest.main()
