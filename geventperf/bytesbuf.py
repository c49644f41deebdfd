"""A ``bytes`` object of a known size, filled in place.

``Response.content`` must be ``bytes``.  Reading into a ``bytearray`` and calling
``bytes()`` on it costs a second copy of the whole body and its page faults (measured
at only 1.5x over requests, against 2.5x without the copy), and doubles peak memory.
CPython can hand out a ``bytes`` object before its contents are written (that is how
``BufferedReader.read(n)`` fills one); through the documented C API we do the same:
allocate an uninitialised ``bytes`` of the final size and expose its storage as a
writable memoryview until it is full.  Nobody else holds a reference to the object
until we return it, so its immutability is never observably broken.

On interpreters without that API (PyPy) the fallback fills a bytearray and copies once.
"""

from __future__ import annotations

import ctypes
import platform
import sys

# PyBUF_WRITE from CPython's Include/pybuffer.h: ask PyMemoryView_FromMemory for a
# writable view.
_PYBUF_WRITE = 0x200

# PyBytes_FromStringAndSize(NULL, n) returns shared singletons for n == 0 (and, on some
# versions, n == 1); writing into those would corrupt every b"" in the process.
_SMALLEST_PRIVATE_BYTES = 2


def _c_api():
    if platform.python_implementation() != "CPython":
        return None
    api = ctypes.pythonapi
    new_bytes = api.PyBytes_FromStringAndSize
    new_bytes.restype = ctypes.py_object
    new_bytes.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)
    storage = api.PyBytes_AsString
    storage.restype = ctypes.c_void_p
    storage.argtypes = (ctypes.py_object,)
    view = api.PyMemoryView_FromMemory
    view.restype = ctypes.py_object
    view.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int)
    return new_bytes, storage, view


_API = _c_api()


class BodyBuffer:
    """Exactly *size* bytes to be filled through :attr:`view`, then taken by :meth:`take`.

    ``take`` releases the view, so nothing can write into the ``bytes`` after it has
    been handed out.
    """

    __slots__ = ("size", "view", "_bytes", "_array")

    def __init__(self, size: int) -> None:
        if size > sys.maxsize:
            # ctypes would wrap it into a c_ssize_t: 2**64 + 5 would allocate 5 bytes,
            # 2**63 a negative size (SystemError).  No allocation can hold it anyway.
            raise OverflowError(f"a body of {size} bytes cannot be allocated")
        self.size = size
        self._bytes: bytes | None = None
        self._array: bytearray | None = None
        if _API is not None and size >= _SMALLEST_PRIVATE_BYTES:
            new_bytes, storage, make_view = _API
            self._bytes = new_bytes(None, size)
            self.view = make_view(storage(self._bytes), size, _PYBUF_WRITE)
        else:
            self._array = bytearray(size)
            self.view = memoryview(self._array)

    def take(self) -> bytes:
        self.view.release()
        if self._bytes is not None:
            data, self._bytes = self._bytes, None
            return data
        data = bytes(self._array or b"")
        self._array = None
        return data

    def discard(self) -> None:
        """Drop the buffer without handing it out (error paths)."""
        self.view.release()
        self._bytes = self._array = None
