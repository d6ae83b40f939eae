"""``UnicodeText``: a Gymnasium text space for pages and actions in any language.

Gymnasium's ``Text`` holds a finite character set, alphanumeric by default, so a page with a space,
a bracket, an emoji or a Chinese title is "not in the observation space" and ``check_env`` fails.
``UnicodeText`` contains every string of at most ``max_length`` characters and indexes a character
by its code point, which is what Gymnasium's flattening and shared memory (``AsyncVectorEnv``) use:
they go through ``character_index``, ``character_list`` and ``len(character_set)`` (the padding
value), all of which cover the whole of Unicode here. ``sample()`` draws printable ASCII strings of
at most 256 characters (a random action or page, not a likely one).

``AsyncVectorEnv(shared_memory=True)`` reads a text space's shared memory once, when it starts
(Gymnasium 1.x), so its observations would stay those of that moment; for ``UnicodeText`` the read
returns a live view that decodes the buffer on access and snapshots itself when copied.
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils import read_from_shared_memory

__all__ = ["UNICODE_SIZE", "SharedTexts", "UnicodeText"]

#: One past the largest code point: the padding index in flattened text.
UNICODE_SIZE = 0x110000
_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "


class _AllCharacters:
    """Every character (``in``), counted as the number of code points (``len``)."""

    def __contains__(self, char: object) -> bool:
        return isinstance(char, str) and len(char) == 1

    def __len__(self) -> int:
        return UNICODE_SIZE


class _CodePoints:
    """``character_list[i]`` is the character with code point ``i``."""

    def __getitem__(self, index: int) -> str:
        return chr(int(index))

    def __len__(self) -> int:
        return UNICODE_SIZE


class UnicodeText(Text):
    """Strings of any Unicode characters, ``min_length`` to ``max_length`` long."""

    def __init__(self, max_length: int, *, min_length: int = 1, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    @property
    def character_set(self) -> frozenset[str]:  # type: ignore[override]
        """Every character (a set-like object: ``in`` and ``len`` only)."""
        return _AllCharacters()  # type: ignore[return-value]

    @property
    def character_list(self) -> tuple[str, ...]:  # type: ignore[override]
        """Characters by index (code point)."""
        return _CodePoints()  # type: ignore[return-value]

    def character_index(self, char: str) -> Any:
        """A character's index: its code point."""
        return ord(char)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random printable-ASCII string (masks are not supported: every character is allowed)."""
        if mask is not None or probability is not None:
            raise ValueError("UnicodeText.sample() takes no mask or probability")
        length = int(self.np_random.integers(self.min_length, min(self.max_length, max(self.min_length, 256)) + 1))
        picks = self.np_random.integers(0, len(_SAMPLE_CHARSET), size=length)
        return "".join(_SAMPLE_CHARSET[i] for i in picks)

    def contains(self, x: Any) -> bool:
        """Any string whose length is in range."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and (self.min_length, self.max_length) == (other.min_length, other.max_length)

    def __hash__(self) -> int:
        return hash(("UnicodeText", self.min_length, self.max_length))


class SharedTexts(Sequence[str]):
    """A batch of texts in a shared int32 buffer (code points, padded), decoded when read."""

    def __init__(self, data: np.ndarray):
        self._data = data

    def __len__(self) -> int:
        return int(self._data.shape[0])

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        row = self._data[index]
        pad = np.flatnonzero(row >= UNICODE_SIZE)
        return row[: pad[0] if len(pad) else len(row)].astype("<u4").tobytes().decode("utf-32-le")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@read_from_shared_memory.register(UnicodeText)
def _read_unicode_text(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTexts:
    data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length))
    return SharedTexts(data)
