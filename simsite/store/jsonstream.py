"""Read the elements of a huge top-level JSON list one at a time, hashing the bytes as they pass.

WebShop's full product file is about 5 GB of JSON; ``json.loads`` would hold all of it as Python
objects (tens of GB). :class:`JsonListReader` decodes it in chunks with the standard library's
``raw_decode``, so memory stays at one chunk plus one element, and it hashes the raw bytes on the
way (the manifest's source SHA-256 costs no second read). Errors are one line naming the file and
the byte or character offset, like :func:`shopsim.simsite.datafiles.load_json`'s.

:meth:`JsonListReader.with_text` also yields each element's own JSON text, so a process pool can
be sent text (decoded again there, which costs less than pickling the decoded objects).
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from shopsim.errors import DataError
from shopsim.simsite.datafiles import open_data_file

__all__ = ["JsonListReader"]

_WS = re.compile(r"[ \t\n\r]*")
_KINDS = {"{": "an object", '"': "a string", "t": "a boolean", "f": "a boolean", "n": "null"}
_CHUNK = 1 << 23
_MAX_ELEMENT = 1 << 28
"""An element longer than this many characters is reported as bad JSON instead of read further."""
_SLACK = 1 << 16
"""Read on before decoding when less than this is left: a decode cut by the buffer's end costs a
JSONDecodeError, which counts the buffer's lines up to the error (megabytes per element)."""


class JsonListReader:
    """Iterate ``(index, element)`` over a file holding one JSON list; ``sha256`` and ``size`` after.

    ``progress`` is called with the bytes read so far after each chunk.
    """

    def __init__(self, path: Path, what: str, progress: Callable[[int], None] | None = None,
                 chunk: int = _CHUNK):
        self.path, self.what, self.progress, self.chunk = path, what, progress, chunk
        self._hash = hashlib.sha256()
        self.size = 0
        self._decode = json.JSONDecoder().raw_decode
        self._buf, self._pos, self._before, self._eof = "", 0, 0, False
        self._file: BinaryIO | None = None
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")

    @property
    def sha256(self) -> str:
        """The SHA-256 of the bytes read so far (the whole file once iteration has finished)."""
        return self._hash.hexdigest()

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for index, element, _ in self._read(False):
            yield index, element

    def with_text(self) -> Iterator[tuple[int, Any, str]]:
        """Iterate ``(index, element, text)``: ``json.loads(text)`` is ``element`` again."""
        return self._read(True)

    def _read(self, text: bool) -> Iterator[tuple[int, Any, str]]:
        try:
            with open_data_file(self.path) as f:
                self._file = f
                yield from self._elements(text)
        except OSError as exc:
            raise DataError(f"{self.path}: cannot read: {exc.strerror or exc}") from exc
        finally:
            self._file = None

    # ---- buffer ---------------------------------------------------------------------------------
    def _more(self) -> bool:
        """Append the next chunk to the buffer (dropping consumed text); False at the end of the file."""
        if self._eof or self._file is None:
            return False
        raw = self._file.read(self.chunk)
        start = self.size
        self.size += len(raw)
        self._hash.update(raw)
        if self.progress is not None:
            self.progress(self.size)
        try:
            text = self._utf8.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            at = max(exc.start, 0)
            byte = raw[at] if at < len(raw) else 0
            raise DataError(f"{self.path}: not UTF-8 text: byte 0x{byte:02x} at offset {start + at}") from None
        self._eof = not raw
        if self._pos:
            self._before += self._pos
            self._buf, self._pos = self._buf[self._pos:], 0
        self._buf += text
        return True

    def _skip_ws(self) -> bool:
        """Skip whitespace; False when the file ends first."""
        while True:
            self._pos = _WS.match(self._buf, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._buf):
                return True
            if not self._more():
                return False

    def _bad(self, msg: str, at: int) -> DataError:
        return DataError(f"{self.path}: not valid JSON: {msg} (character {self._before + at})")

    # ---- grammar ---------------------------------------------------------------------------------
    def _elements(self, text: bool) -> Iterator[tuple[int, Any, str]]:
        if not self._skip_ws():
            raise DataError(f"{self.path}: empty file (expected JSON)")
        first = self._buf[self._pos]
        if first != "[":
            raise DataError(f"{self.path}: expected {self.what}, got {_KINDS.get(first, 'a number')}")
        self._pos += 1
        if not self._skip_ws():
            raise self._bad("unterminated list (the file ends early)", self._pos)
        index = 0
        if self._buf[self._pos] == "]":
            self._pos += 1
        else:
            while True:
                # reading on drops only text before the element, so its start stays in the buffer
                start = self._before + self._pos
                element = self._element()
                yield index, element, self._buf[start - self._before : self._pos] if text else ""
                index += 1
                if not self._skip_ws():
                    raise self._bad("unterminated list (the file ends early)", self._pos)
                sep = self._buf[self._pos]
                self._pos += 1
                if sep == "]":
                    break
                if sep != ",":
                    raise self._bad("expecting ',' delimiter", self._pos - 1)
                if not self._skip_ws():
                    raise self._bad("unterminated list (the file ends early)", self._pos)
        if self._skip_ws():
            raise self._bad("extra data after the list", self._pos)

    def _element(self) -> Any:
        """Decode the element at the current position, reading more when it runs past the buffer.

        A value that ends at (or, for a number, near) the buffer's end may continue in the next
        chunk, so it is decoded again with more text.
        """
        if len(self._buf) - self._pos < min(_SLACK, self.chunk):
            self._more()
        while True:
            try:
                element, end = self._decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                if len(self._buf) - self._pos < _MAX_ELEMENT and self._more():
                    continue
                raise self._bad(exc.msg, exc.pos) from None
            except RecursionError:
                raise self._bad("nested too deeply", self._pos) from None
            # a number cut at the buffer's end decodes short ("0." reads as 0, "1e+" as 1): read on
            number = isinstance(element, (int, float)) and not isinstance(element, bool)
            if (end == len(self._buf) or (number and len(self._buf) - end <= 2)) and self._more():
                continue
            self._pos = end
            return element
