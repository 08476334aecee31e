"""numpy arrays to Kairos tensors and back.

A Kairos ``Tensor`` is the element type (``dtype``), the shape of ONE sample (no batch dimension:
the job batches requests itself) and the elements as little-endian bytes in row-major (C) order,
exactly as the Java client writes them.
"""

import numpy as np

#: Kairos DType symbol to the numpy type of its elements (little-endian where it matters).
DTYPES = {
    "FLOAT32": np.dtype("<f4"),
    "FLOAT64": np.dtype("<f8"),
    "INT32": np.dtype("<i4"),
    "INT64": np.dtype("<i8"),
    "UINT8": np.dtype("u1"),
    "INT8": np.dtype("i1"),
    "BOOL": np.dtype("?"),  # one byte, 0 or 1
    "FLOAT16": np.dtype("<f2"),
}


def dtype_symbol(dtype):
    """The Kairos DType symbol of a numpy dtype, whatever its byte order; ValueError for one Kairos lacks."""
    dtype = np.dtype(dtype)
    for symbol, kairos in DTYPES.items():
        if dtype.kind == kairos.kind and dtype.itemsize == kairos.itemsize:
            return symbol
    raise ValueError("numpy dtype %s has no Kairos tensor type; Kairos has %s"
                     % (dtype, ", ".join("%s (%s)" % (s, d.name) for s, d in DTYPES.items())))


def to_tensor(array):
    """The Tensor record (a dict) of ``array``: its dtype, its shape and its elements, little-endian, row-major."""
    array = np.asarray(array)
    symbol = dtype_symbol(array.dtype)
    data = np.ascontiguousarray(array, dtype=DTYPES[symbol]).tobytes(order="C")
    return {"dtype": symbol, "shape": [int(d) for d in array.shape], "data": data}


def from_tensor(tensor):
    """The numpy array of a Tensor record (a dict): a read-only view of its bytes, shaped."""
    symbol = tensor["dtype"]
    if symbol not in DTYPES:
        raise ValueError("unknown Kairos dtype %r" % (symbol,))
    dtype = DTYPES[symbol]
    shape = tuple(int(d) for d in tensor["shape"])
    count = 1
    for d in shape:
        count *= d
    data = tensor["data"]
    if len(data) != count * dtype.itemsize:
        raise ValueError("a %s tensor of shape %s holds %d bytes, not %d" % (symbol, list(shape), len(data), count * dtype.itemsize))
    return np.frombuffer(data, dtype=dtype).reshape(shape)
