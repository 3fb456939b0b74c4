"""Text to keyword tokens: jieba segmentation, scope tags, stop words, query terms.

Chinese has no spaces, so text is segmented before FTS5 sees it (see :mod:`memory.record.keyword`):
with ``jieba`` (its dictionary ships in the package) into words joined by spaces, or left to
FTS5's ``trigram`` tokenizer. In jieba mode each word is tagged with its row's scope
(``s<digest>word``), so keyword statistics and postings are per user.
"""

from __future__ import annotations

import array
import contextlib
import functools
import hashlib
import logging
import re
import struct
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memory.cache_files import cache_file, read_cache, write_cache
from memory.domain.types import index_text

logger = logging.getLogger(__name__)

JIEBA = "jieba"
TRIGRAM = "trigram"
TAG_BYTES = 5
"""Digest bytes of a scope tag (40 bits: a collision only merges two scopes' statistics)."""

_WORD = re.compile(r"\w", re.UNICODE)
_PIECES = re.compile(r"[\W_]+", re.UNICODE)
"""What FTS5's unicode61 tokenizer splits on (underscore included)."""
STOPWORDS = frozenset(
    "的 了 是 我 你 他 她 它 们 在 有 和 就 不 也 都 这 那 吗 呢 吧 啊 呀 哦 嗯 么 什么 怎么 哪里 哪 "
    "一个 一下 没有 还 又 很 对 把 被 给 让 跟 要 会 能 说 想 去 过 着 到 从 用 为 与 及 而 之 其 "
    "a an the is are was were be been am do does did to of in on at for and or but with by from "
    "what which who whom where when how why that this these those it its i you he she we they me "
    "my your his her our their user karin 用户 s t m d ll re ve".split()
)

_jieba_lock = threading.Lock()
_jieba_ready = False


def _jieba_cut(text: str) -> list[str]:
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                cached = _prefix_dict_file()
                if cached is None or not _load_prefix_dict(jieba.dt, cached):
                    jieba.initialize()
                    if cached is not None:
                        _save_prefix_dict(jieba.dt, cached)
                _jieba_ready = True
    return list(jieba.cut_for_search(text))


def _prefix_dict_file() -> Path | None:
    import jieba

    try:
        return cache_file("jieba-prefix-dict", (Path(jieba.__file__).parent / "dict.txt",), ".bin")
    except OSError:
        return None


def _load_prefix_dict(tokenizer: Any, cached: Path) -> bool:
    """Give jieba its prefix dictionary from :func:`_save_prefix_dict`'s file: a fifth of the time
    of jieba's own cache (one split and one array instead of half a million unmarshalled
    objects). False when there is no valid file."""
    data = read_cache(cached)
    if data is None:
        return False
    try:
        total, count, words_size = struct.unpack_from("<qqq", data)
        start = struct.calcsize("<qqq")
        words = data[start : start + words_size].decode("utf-8").split("\n")
        counts = array.array("q")
        counts.frombytes(data[start + words_size :])
    except (struct.error, UnicodeDecodeError, ValueError):
        return False
    if len(words) != count or len(counts) != count:
        return False
    tokenizer.FREQ, tokenizer.total = dict(zip(words, counts.tolist(), strict=True)), total
    tokenizer.initialized = True
    return True


def _save_prefix_dict(tokenizer: Any, cached: Path) -> None:
    words = list(tokenizer.FREQ)
    if any("\n" in w for w in words):
        return
    joined = "\n".join(words).encode("utf-8")
    header = struct.pack("<qqq", tokenizer.total, len(words), len(joined))
    write_cache(cached, header + joined + array.array("q", tokenizer.FREQ.values()).tobytes())


def load_jieba() -> None:
    """Load jieba's dictionary now (from the user cache, :mod:`memory.cache_files`, when there)."""
    _jieba_cut("")


def words(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (jieba segmentation; punctuation dropped)."""
    return [w.lower() for w in (t.strip() for t in _jieba_cut(text)) if w and _WORD.search(w)]


def scope_tag(scope: str) -> str:
    """The token prefix of a scope: ``s`` and a hex digest (letters and digits only)."""
    return "s" + hashlib.blake2b(scope.encode("utf-8"), digest_size=TAG_BYTES).hexdigest()


def scoped(scope: str, terms: Iterable[str]) -> list[str]:
    """Terms as they are indexed in ``scope``: each word piece FTS5 would see, tagged."""
    tag = scope_tag(scope)
    return [tag + piece for term in terms for piece in _PIECES.split(term) if piece]


_prepared: dict[str, str] = {}
_prepared_lock = threading.Lock()
PREPARED_LIMIT = 10_000
"""Prepared token strings kept at most (an unused one is dropped once there are more)."""


def index_tokens(scope: str, text: str) -> str:
    """The jieba-mode FTS5 column of a row: its scope tag, then its words tagged (prepared
    segmentation first)."""
    with _prepared_lock:
        ready = _prepared.pop(text, None)
    joined = ready if ready is not None else " ".join(words(text))
    return " ".join([scope_tag(scope), *scoped(scope, joined.split())])


def prepare_rows(tokenizer: str, rows: Iterable[tuple[str | None, str]]) -> None:
    """:func:`prepare` the keyword text of rows given as ``(note, content)`` (jieba only: the
    trigram tokenizer needs no segmentation)."""
    if tokenizer == JIEBA:
        prepare(index_text(note, content) for note, content in rows)


def prepare(texts: Iterable[str]) -> None:
    """Segment texts now, before a write transaction, so the triggers inside it only look the
    tokens up: one large message then never holds the database lock while jieba reads it."""
    ready = {text: " ".join(words(text)) for text in texts}
    with _prepared_lock:
        if len(_prepared) + len(ready) > PREPARED_LIMIT:
            _prepared.clear()
        _prepared.update(ready)


NAME_TAGS = frozenset({"ns", "nr", "nt", "nz"})
"""Part-of-speech tags of names in jieba's dictionary (places, people, organisations, other
proper nouns): a name is never too common to match, however often news text says it."""


@functools.cache
def common_words(max_idf: float) -> frozenset[str]:
    """Chinese words more common than ``max_idf``: their inverse document frequency in jieba's
    general-corpus table (``jieba/analyse/idf.txt``, 270,000 words) is below it (时候 4.3,
    什么 3.6; 咖啡 7.8), and its dictionary does not tag them as names (北京 4.7 stays). Such a
    word says little about which memory is meant, so it never decides a keyword match. Empty at 0.

    Reading the two tables takes half a second; the few hundred words found are kept in the user
    cache (:mod:`memory.cache_files`) for the next process."""
    if max_idf <= 0:
        return frozenset()
    import jieba

    folder = Path(jieba.__file__).parent
    tables = (folder / "analyse" / "idf.txt", folder / "dict.txt")
    try:
        cached = cache_file(f"common-words-{max_idf:g}", tables, ".txt")
    except OSError:
        return _common_words(max_idf, *tables)
    data = read_cache(cached)
    with contextlib.suppress(UnicodeDecodeError):  # a damaged cache: built again
        if data is not None:
            return frozenset(data.decode("utf-8").split("\n")) - {""}
    found = _common_words(max_idf, *tables)
    write_cache(cached, "\n".join(sorted(found)).encode("utf-8"))
    return found


def _common_words(max_idf: float, idf_table: Path, dictionary: Path) -> frozenset[str]:
    found = set()
    with idf_table.open(encoding="utf-8") as lines:
        for line in lines:
            word, _, idf = line.rstrip("\n").rpartition(" ")
            try:
                if float(idf) < max_idf:
                    found.add(word)
            except ValueError:
                continue
    with dictionary.open(encoding="utf-8") as lines:
        names = {parts[0] for parts in map(str.split, lines) if len(parts) == 3 and parts[2] in NAME_TAGS}
    return frozenset(found - names)


def query_terms(query: str, tokenizer: str, common_idf: float = 0.0) -> set[str]:
    """The terms a query is matched on: trigrams, or jieba words minus stop words and minus the
    words more common than ``common_idf`` (:func:`common_words`)."""
    if tokenizer == TRIGRAM:
        runs = [w for w in re.findall(r"\w+", query.lower()) if len(w) >= 3]
        return {run[i : i + 3] for run in runs for i in range(len(run) - 2)}
    common = common_words(common_idf)
    return {w for w in words(query) if w not in STOPWORDS and w not in common}
