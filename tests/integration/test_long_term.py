"""Long-term memory against real Qdrant (local mode, in memory and on disk) with the real e5 embedder."""

from __future__ import annotations

import uuid

import pytest
from langchain_core.embeddings import Embeddings
from qdrant_client import QdrantClient

from memory.embeddings import E5Embeddings
from memory.errors import InvalidInputError, NotFoundError
from memory.long_term import LongTermMemory, Memory, TimeWindow, memory_id

DAY = 86_400_000
NOW = 1_780_000_000_000


@pytest.fixture(scope="module")
def e5() -> Embeddings:
    return E5Embeddings()


@pytest.fixture
def ltm(qdrant_client: QdrantClient, e5: Embeddings) -> LongTermMemory:
    store = LongTermMemory(qdrant_client, f"m{uuid.uuid4().hex[:8]}")
    store.setup(384)
    return store


def add(ltm: LongTermMemory, e5: Embeddings, user: str, key: str, text: str, **fields: object) -> Memory:
    m = Memory(id=memory_id(user, key), text=text, user_id=user, session_id="s1",
               timestamp=int(fields.pop("timestamp", NOW)), **fields)  # type: ignore[arg-type]
    ltm.upsert([m], e5.embed_documents([text]))
    return m


def test_setup_is_idempotent_and_checks_vector_size(ltm: LongTermMemory) -> None:
    ltm.setup(384)
    with pytest.raises(InvalidInputError, match="384-dimensional"):
        ltm.setup(1536)


def test_search_finds_the_relevant_memory_in_both_languages(ltm: LongTermMemory, e5: Embeddings) -> None:
    add(ltm, e5, "u1", "a", "The user lives in Shanghai near Lujiazui")
    add(ltm, e5, "u1", "b", "用户端午节在海底捞请客户吃饭")
    add(ltm, e5, "u1", "c", "The user likes green tea")
    hits = ltm.search("u1", e5.embed_query("我端午节在哪家餐厅请的客户"), limit=3)
    assert hits[0].memory.text == "用户端午节在海底捞请客户吃饭"
    hits = ltm.search("u1", e5.embed_query("where do I live"), limit=3)
    assert hits[0].memory.text.startswith("The user lives in Shanghai")
    assert all(-1.0 <= h.cosine <= 1.0 for h in hits)


def test_upsert_with_the_same_key_replaces_instead_of_duplicating(ltm: LongTermMemory, e5: Embeddings) -> None:
    add(ltm, e5, "u1", "k", "first version")
    add(ltm, e5, "u1", "k", "second version")
    assert ltm.count("u1") == 1
    assert [m.text for m in ltm.scroll("u1")] == ["second version"]


def test_one_user_never_sees_or_changes_another_users_memories(ltm: LongTermMemory, e5: Embeddings) -> None:
    secret = add(ltm, e5, "alice", "x", "Alice's bank PIN is 4321")
    add(ltm, e5, "bob", "y", "Bob likes jazz")
    hits = ltm.search("bob", e5.embed_query("what is the bank PIN"), limit=20)
    assert [h.memory.user_id for h in hits] == ["bob"]
    assert ltm.get("bob", [secret.id]) == []
    with pytest.raises(NotFoundError):
        ltm.set_status("bob", secret.id, "disputed", NOW)
    assert ltm.delete_ids("bob", [secret.id]) == 0
    assert ltm.bump_refs("bob", [secret.id], NOW) == 0
    assert ltm.get("alice", [secret.id])[0].status == "active"
    assert ltm.delete_user("bob") == 1
    assert ltm.count("alice") == 1


def test_time_window_matches_when_it_happened_or_when_it_was_said(ltm: LongTermMemory, e5: Embeddings) -> None:
    june = TimeWindow(NOW - 10 * DAY, NOW - 9 * DAY)
    inside_event = add(ltm, e5, "u", "a", "dinner with the client", timestamp=NOW, event_time=NOW - 10 * DAY + 5)
    inside_ts = add(ltm, e5, "u", "b", "meeting notes", timestamp=NOW - 9 * DAY - 5)
    said_then = add(ltm, e5, "u", "c", "dinner yesterday", timestamp=NOW - 10 * DAY + 5, event_time=NOW - 11 * DAY)
    add(ltm, e5, "u", "d", "old note", timestamp=NOW - 30 * DAY, event_time=NOW - 31 * DAY)
    found = {h.memory.id for h in ltm.search("u", e5.embed_query("dinner"), window=june)}
    assert found == {inside_event.id, inside_ts.id, said_then.id}
    hybrid = {h.memory.id for h in ltm.hybrid_search("u", e5.embed_query("dinner"), "dinner", window=june)}
    assert hybrid == found
    with pytest.raises(InvalidInputError):
        TimeWindow(5, 5)


def test_status_filter_hides_disputed_and_superseded(ltm: LongTermMemory, e5: Embeddings) -> None:
    old = add(ltm, e5, "u", "old", "The user lives in Beijing")
    new = add(ltm, e5, "u", "new", "The user lives in Shanghai")
    disputed = add(ltm, e5, "u", "d", "The user lives on the moon", status="disputed")
    superseded = ltm.supersede("u", old.id, new.id, NOW)
    assert superseded.status == "superseded" and superseded.invalid_at == NOW
    hits = ltm.search("u", e5.embed_query("where does the user live"))
    assert [h.memory.id for h in hits] == [new.id]
    all_hits = ltm.search("u", e5.embed_query("where"), statuses=("active", "superseded", "disputed"))
    assert {h.memory.id for h in all_hits} == {old.id, new.id, disputed.id}
    assert ltm.get("u", [old.id])[0].superseded_by == new.id
    ltm.set_status("u", disputed.id, "active", NOW)
    assert len(ltm.search("u", e5.embed_query("where"))) == 2
    with pytest.raises(InvalidInputError):
        ltm.search("u", e5.embed_query("x"), statuses=("deleted",))  # type: ignore[arg-type]


def test_bump_refs_weight_and_delete_by_source(ltm: LongTermMemory, e5: Embeddings) -> None:
    a = add(ltm, e5, "u", "a", "fact a", source=["e1", "e2"])
    b = add(ltm, e5, "u", "b", "fact b", source=["e3"])
    add(ltm, e5, "other", "a", "fact a of someone else", source=["e1"])
    assert ltm.bump_refs("u", [a.id, a.id, "not-a-uuid"], NOW + 1) == 1
    got = ltm.get("u", [a.id])[0]
    assert got.ref_count == 1 and got.last_accessed == NOW + 1
    assert ltm.bump_refs("u", [a.id, b.id], NOW + 2) == 2
    assert {m.id: m.ref_count for m in ltm.get("u", [a.id, b.id])} == {a.id: 2, b.id: 1}
    assert ltm.set_weight("u", b.id, 2.0).decay_weight == 2.0
    with pytest.raises(InvalidInputError):
        ltm.set_weight("u", b.id, 0)
    assert ltm.delete_by_source("u", ["e2"]) == 1
    assert [m.id for m in ltm.scroll("u")] == [b.id]
    assert ltm.count("other") == 1


def test_bad_memories_are_refused(ltm: LongTermMemory, e5: Embeddings) -> None:
    vec = e5.embed_documents(["x"])
    good = dict(text="x", user_id="u", session_id="s", timestamp=NOW)
    with pytest.raises(InvalidInputError, match="not a UUID"):
        ltm.upsert([Memory(id="abc", **good)], vec)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="user id"):
        ltm.upsert([Memory(id=str(uuid.uuid4()), **{**good, "user_id": "a:b"})], vec)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="memory text is empty"):
        ltm.upsert([Memory(id=str(uuid.uuid4()), **{**good, "text": " "})], vec)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="vectors"):
        ltm.upsert([Memory(id=str(uuid.uuid4()), **good)], [])  # type: ignore[arg-type]
    assert ltm.count("u") == 0


def test_hybrid_search_gives_what_one_search_missed_its_own_score(ltm: LongTermMemory, e5: Embeddings) -> None:
    texts = ["I adopted a dog named Rex last spring", "Rex the dog loves the beach at Santa Monica",
             "My sister visited the lake house", "The puppy chewed my running shoes",
             "I walk my pet every morning before work", "Dinner with Maria at the Italian place",
             "The beach was cold and windy in March", "Our cat hides under the sofa all day",
             "I bought a leash and a collar at the pet store", "Santa Monica pier has a Ferris wheel",
             "Work moved the weekly sync to Thursday", "My veterinarian said Rex is healthy"]
    for i, text in enumerate(texts):
        add(ltm, e5, "u", f"k{i}", text, timestamp=NOW - i * DAY)
    add(ltm, e5, "other", "x", "Rex the dog at the beach", timestamp=NOW)
    add(ltm, e5, "u", "gone", "Rex the dog at the beach in Santa Monica", status="disputed")
    vector, text = e5.embed_query("what did my dog do at the beach"), "dog Rex beach"
    everything = {h.memory.id: h for h in ltm.hybrid_search("u", vector, text, limit=100)}
    assert len(everything) == len(texts)  # every memory of the user, each with both of its own scores
    by_cosine = sorted(everything, key=lambda k: everything[k].cosine or 0.0, reverse=True)
    by_bm25 = sorted((k for k in everything if everything[k].lexical is not None),
                     key=lambda k: everything[k].lexical or 0.0, reverse=True)
    assert everything[by_bm25[2]].lexical != everything[by_bm25[3]].lexical  # no tie at the cut

    hits = ltm.hybrid_search("u", vector, text, limit=3)
    assert {h.memory.id for h in hits} == set(by_cosine[:3]) | set(by_bm25[:3])
    assert set(by_cosine[:3]) != set(by_bm25[:3])  # each search missed something the other found
    for h in hits:  # the same score up to float32 rounding: a search over a few ids may take another BLAS kernel
        assert h.cosine == pytest.approx(everything[h.memory.id].cosine, rel=1e-6)
        assert h.lexical == everything[h.memory.id].lexical
    missed = ltm.hybrid_search("u", vector, text, limit=3, exact_cosine=False)
    assert {h.memory.id for h in missed} == {h.memory.id for h in hits}
    for h in missed:
        assert (h.cosine is None) == (h.memory.id not in by_cosine[:3])
        assert (h.lexical is None) == (h.memory.id not in by_bm25[:3])


def test_vectors_are_the_stored_ones_by_id_and_only_the_users(ltm: LongTermMemory, e5: Embeddings) -> None:
    import numpy as np

    a = add(ltm, e5, "u1", "a", "我的手机是三星Galaxy S23。")
    b = add(ltm, e5, "u1", "b", "我用OPPO Find X7。")
    other = add(ltm, e5, "u2", "c", "I live in Oslo.")
    got = ltm.vectors("u1", [a.id, b.id, other.id, "not-a-uuid", str(uuid.uuid4())])
    assert set(got) == {a.id, b.id}  # another user's and unknown ids are left out
    expected = np.asarray(e5.embed_documents([a.text]))[0]
    assert np.allclose(np.asarray(got[a.id]), expected / np.linalg.norm(expected), atol=1e-4)
    assert ltm.vectors("u1", []) == {}
    with pytest.raises(InvalidInputError):
        ltm.vectors("", [a.id])
