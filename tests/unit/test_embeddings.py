from __future__ import annotations

import math

import pytest
from langchain_openai import OpenAIEmbeddings

from memory.embeddings import E5Embeddings, make_embeddings, vector_size


def test_local_default_is_e5_with_query_and_passage_prefixes() -> None:
    emb = make_embeddings(None)
    assert isinstance(emb, E5Embeddings) and vector_size(emb) == 384
    q = emb.embed_query("where do I live")
    [p] = emb.embed_documents(["where do I live"])
    assert len(q) == len(p) == 384
    assert math.isclose(sum(x * x for x in q), 1.0, rel_tol=1e-3)
    assert q != p  # "query: " and "passage: " prefixes give different vectors
    assert emb.embed_documents([]) == []


def test_configured_model_goes_over_the_openai_compatible_wire_without_tiktoken() -> None:
    emb = make_embeddings("text-embedding-3-small", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert isinstance(emb, OpenAIEmbeddings)
    assert emb.model == "text-embedding-3-small" and emb.check_embedding_ctx_length is False
    assert emb.openai_api_base == "http://127.0.0.1:9/v1"


def test_a_query_embeds_on_one_thread_while_the_other_cores_are_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr("os.getloadavg", lambda: (0.3, 0.2, 0.1))
    assert E5Embeddings().threads_for_query() == 2
    monkeypatch.setattr("os.getloadavg", lambda: (5.4, 3.6, 1.8))
    assert E5Embeddings().threads_for_query() == 1
    assert E5Embeddings(query_threads=2).threads_for_query() == 2  # an explicit setting wins


def test_the_thread_count_never_changes_the_vector() -> None:
    one = E5Embeddings(query_threads=1).embed_query("我现在住在哪里？")
    two = E5Embeddings(query_threads=2).embed_query("我现在住在哪里？")
    assert sum(a * b for a, b in zip(one, two, strict=True)) > 0.9999
