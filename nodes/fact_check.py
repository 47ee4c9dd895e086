"""fact_check: candidate memories from the user's message, checked by the verifier against the most similar stored
memories in one call: add | duplicate | update | conflict.

Model output is untrusted input (STYLE.md rule 17). Candidates pass the junk gate (questions, greetings, thanks,
small talk and content-free text are never memories, whatever the extractor said); verdicts pass the gates of
``memory/language/gates.py`` (a duplicate must say the same thing, an update or conflict must be about the same thing);
a verdict that fails its gate, cannot be parsed or names a memory it was not shown becomes ``add``. A fact the user
stated is never dropped or hidden because a model said so.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.models import ModelError, describe, invoke_structured, usage_of
from graph.state import Candidate, State, Turn, Usage, Verdict
from memory.embeddings import restates
from memory.errors import ServiceUnavailableError
from memory.language.change import says_change
from memory.language.facts import one_fact, split_facts
from memory.language.gates import (
    GateConfig,
    could_change,
    drops_slot,
    gate,
    states_change,
    subsumed,
)
from memory.language.junk import (
    about_the_user,
    grounded,
    junk_reason,
    kept_statements,
    normalized,
    respaced,
    statements,
    uncovered_statements,
    with_details,
    without_greeting,
    without_preamble,
)
from memory.language.links import Link, links_to, same_holder
from memory.language.meaning import changed_meaning
from memory.language.slots import aliases, single_valued_slots, slots
from memory.language.standalone import fragment_reason, source_sentence, standalone
from memory.language.temporal import event_time_ms
from memory.long_term import Hit, memory_id
from memory.tokens import truncate_tokens
from nodes._turn import Prefetch, clock, context_of, turn_of

log = logging.getLogger(__name__)

_IMPORTANT = re.compile(r"\b(important|remember (this|that)|don'?t forget|never forget)\b|重要|记住|别忘|不要忘",
                        re.IGNORECASE)


class ExtractedMemory(BaseModel):
    text: str = Field(description="one short sentence about the user")
    when: str = Field(default="", description="the time expression as written, or empty")


class Extraction(BaseModel):
    """Facts about the user worth remembering."""

    memories: list[ExtractedMemory] = Field(default_factory=list)


class CandidateVerdict(BaseModel):
    """The verifier's decision on one new memory."""

    candidate: int = Field(description="number of the new memory")
    decision: Literal["add", "duplicate", "update", "conflict"]
    existing: int = Field(default=0, description="number of the existing memory; 0 for add")
    reason: str = ""


class VerifierVerdicts(BaseModel):
    """One verdict per new memory."""

    verdicts: list[CandidateVerdict] = Field(default_factory=list)


CHANGE_NEIGHBOURS = 20  # stored memories a stated change is checked against (the gates decide, not the order)


def marks_important(text: str) -> bool:
    """The user says this matters ("remember this", "it's important", "记住", "很重要")."""
    return bool(_IMPORTANT.search(text))


def _held_by_others(item: ExtractedMemory, items: Sequence[ExtractedMemory]) -> frozenset[str]:
    return frozenset().union(*(slots(o.text) for o in items if o is not item))


def candidates_from(extraction: Extraction, message: str, now: datetime, *, important: bool, max_tokens: int,
                    encoding: str, earlier: Sequence[str] = (), known: Sequence[str] = ()) -> list[Candidate]:
    """The extractor's memories that pass the gates (not junk, grounded in the message), cut to a memory's length,
    without repeats. If none passes while the message states something about the user, its statements are kept:
    an extractor cannot make a stated fact disappear. Importance comes from the user (the turn's flag or "remember
    this"), never from the extractor. Every memory stands alone (:func:`memory.language.standalone.standalone`): a
    fragment becomes the user's sentence, its pronoun resolved from the message or ``earlier`` (the session's
    earlier user turns, oldest first) or ``known`` (the memories recall found for the message)."""
    # one fact per memory: an extractor's "I live in Beijing. My favourite book is ..." is two memories (a later
    # "I moved" can then retire where the user lived without retiring the book)
    split = [ExtractedMemory(text=part, when=m.when) for m in extraction.memories for part in split_facts(m.text)]
    items = [m for m in split if m.text.strip() and not junk_reason(m.text) and grounded(m.text, message)
             and not drops_slot(m.text, message, _held_by_others(m, split)) and not changed_meaning(m.text, message)]
    if not items:  # the user's own words, one fact per memory as well
        refused = [m.text for m in split if m.text.strip()]
        items = [ExtractedMemory(text=part) for part in split_facts(kept_statements(message, refused))]
    else:  # what the extractor left out of a message about the user is kept too, as the user said it
        refused = [m.text for m in split if m.text.strip() and not junk_reason(m.text) and m not in items]
        items += [ExtractedMemory(text=t) for t in uncovered_statements(message, [m.text for m in items], refused)]
        # a memory saying only how long or when of what another says goes back with it, as the user said the two
        items = [next((m for m in items if m.text == t), None) or ExtractedMemory(text=t)
                 for t in with_details([m.text for m in items], message)]
    seen: set[str] = set()
    out: list[Candidate] = []
    asked = without_preamble(message) != message  # "Remember that ...": the model may echo it in the memory
    # a message that states one thing dates what was extracted from it, in the user's words first: the extractor
    # left the time out ("I'm going to fly to Tokyo") or shortened it ("on Friday", when "Friday", for "Next Friday
    # I'm flying to Tokyo")
    dated_by = message if _one_fact(message) else ""
    for item in items:
        fact = standalone(respaced(without_preamble(without_greeting(item.text), asked=asked), message), message,
                          earlier, known)
        # a fragment made whole is the user's sentence, which may say several facts ("and works as a nurse" ->
        # "I live in Chengdu and I work as a nurse…", a new user's trial): one fact per memory again, when each
        # part stands alone, so a later "I moved" can retire where the user lived and not the job
        parts = split_facts(fact)
        for part in parts if len(parts) > 1 and all(fragment_reason(p) is None for p in parts) else [fact]:
            text = truncate_tokens(" ".join(part.split()), max_tokens, encoding)
            if not text or normalized(text) in seen or junk_reason(text):
                continue
            seen.add(normalized(text))
            when = item.when if item.when.strip() and item.when.strip().lower() in message.lower() else ""
            # only a time phrase the user wrote counts: a model's invented "when" would misdate the memory
            out.append(Candidate(text=text, detail=message, event_time=event_time_ms(now, dated_by, when, text),
                                 important=important))
    # the extractor's restatements within the turn: "I love tea" beside "I love green tea" is one memory
    return [c for c in out if not any(subsumed(c["text"], o["text"]) for o in out if o is not c)]


def _verdict(cand: Candidate, new_id: str, decision: str, target: Hit | None, reason: str, *, said: str = "",
             note: str = "") -> Verdict:
    v = Verdict(candidate=cand, decision="add", memory_id=new_id, target=None, target_text=None, reason=reason)
    if target is not None and decision in ("duplicate", "update", "conflict"):
        v["decision"] = "duplicate" if decision == "duplicate" else "update" if decision == "update" else "conflict"
        v["target"] = target.memory.id
        v["target_text"] = target.memory.text
    if said:
        v["said"] = said
    if note:
        v["note"] = note
    return v


def judge_all(parsed: VerifierVerdicts | None, cands: Sequence[Candidate], ids: Sequence[str],
              neighbours: Sequence[Sequence[Hit]], numbered: Sequence[Hit], gates: GateConfig) -> list[Verdict]:
    """Each candidate's verdict after the gates. ``numbered`` is the list of existing memories the verifier saw
    (1-based); a candidate may only be judged against its own neighbours (the cosine the gates need)."""
    given: dict[int, CandidateVerdict] = {}
    for v in parsed.verdicts if parsed else []:
        given.setdefault(v.candidate, v)  # the first verdict for a candidate counts
    out: list[Verdict] = []
    for i, (cand, new_id, near) in enumerate(zip(cands, ids, neighbours, strict=True), 1):
        found = given.get(i)
        if found is None:
            why = "the verifier's answer could not be parsed" if parsed is None else "the verifier gave no verdict"
            out.append(_verdict(cand, new_id, "add", None, f"{why}: stored unchecked"))
            continue
        v = found
        if v.decision == "add":
            out.append(_verdict(cand, new_id, "add", None, v.reason, said="add"))
            continue
        target = numbered[v.existing - 1] if 1 <= v.existing <= len(numbered) else None
        own = next((h for h in near if target is not None and h.memory.id == target.memory.id), None)
        if own is None:
            out.append(_verdict(cand, new_id, "add", None, v.reason, said=v.decision,
                                note=f"the verifier named memory {v.existing}, which is not one this memory was "
                                     "compared with"))
            continue
        g = gate(v.decision, v.reason, cand["text"], own.memory.text, own.cosine, gates)
        out.append(_verdict(cand, new_id, g.decision, own, v.reason, said=v.decision, note=g.note))
    return out


def _one_fact(message: str) -> bool:
    """Does ``message`` state one thing (so what it says as a whole, a time or a change, belongs to that fact)?"""
    return one_fact(about_the_user(message) or message)


def _said_change(cand: Candidate) -> str:
    """What a stated change is judged on: the candidate, or, when the message states one thing, the message (the
    extractor wrote "我正在腾讯工作" for "我现在在腾讯工作。" and dropped the "现在" that says it changed)."""
    message = cand.get("detail") or ""
    if message and not says_change(cand["text"]) and _one_fact(message):
        return message
    return cand["text"]


def ids_of(turn: Turn, cands: Sequence[Candidate]) -> list[str]:
    """The point ids of a turn's memories (deterministic: a retried turn writes the same points)."""
    return [memory_id(turn["user_id"], f"turn:{turn['id']}:{i}") for i in range(len(cands))]


def whole_changes(cands: Sequence[Candidate], links: Sequence[Sequence[Link]], *, max_tokens: int, encoding: str
                  ) -> list[Candidate]:
    """``cands`` with the memories cut from one sentence put back together when one of them names what an older
    memory is about and another does not follow that memory: the sentence reports a change ("Low-carb didn't work
    for me, I'm vegetarian now", "戴尔XPS充不进电了，我换成了Surface"), and cut in two, its new value would follow
    nothing. Sentences that state several things about other subjects stay cut."""
    from memory.language.text import sentences

    groups: dict[tuple[str, int], list[int]] = {}
    for n, c in enumerate(cands):
        at = source_sentence(c["text"], sentences(c["detail"]))
        if at is not None:
            groups.setdefault((c["detail"], at), []).append(n)
    merged: dict[int, Candidate] = {}
    dropped: set[int] = set()
    for (message, at), members in groups.items():
        named = {j for n in members for j, k in enumerate(links[n]) if k.named}
        if len(members) < 2 or not named:
            continue
        following = [n for n in members if any(links[n][j].follows and not links[n][j].weak for j in named)]
        if len(following) == len(members):
            continue  # every part follows it already (by evidence: nearness alone is a guess)
        # a part about another one-valued subject than the parts that follow, which says no change, is another
        # fact: "I live in Porto and I work as a marine biologist at the aquarium." (where the user lives follows
        # "I live in Hangzhou"; the job is new) was put back whole in two new users' trials, and neither the
        # later move nor the new job could retire it
        held = frozenset().union(*(single_valued_slots(cands[n]["text"]) for n in following))
        if held and any((own := single_valued_slots(cands[n]["text"])) and not own & held
                        and not says_change(cands[n]["text"]) for n in members if n not in following):
            continue
        first = cands[members[0]]
        text = truncate_tokens(" ".join(sentences(message)[at].split()), max_tokens, encoding)
        merged[members[0]] = Candidate(text=text, detail=message, event_time=first["event_time"],
                                       important=any(cands[n]["important"] for n in members))
        dropped.update(members[1:])
    return [merged.get(n, c) for n, c in enumerate(cands) if n not in dropped]


def with_links(verdicts: Sequence[Verdict], neighbours: Sequence[Sequence[Hit]], links: Sequence[Sequence[Link]],
               floor: float = math.inf) -> list[Verdict]:
    """Each new memory that will be stored active or disputed names the older memories it follows (same subject:
    :func:`memory.language.links.link`; ``links`` holds each candidate's links to its ``neighbours``), and why. An
    update's target is one of them, or the update becomes an add: only a memory linked by evidence (not by nearness
    alone, ``Link.weak``) may be superseded, whatever the verifier said. The verifier's word still counts as a guess of
    the subject: an update of a neighbour both say is about the same person, at least ``floor`` near, that nothing links
    becomes an add that follows it (recall ranks it first when it is about the question nearly as much)."""
    out: list[Verdict] = []
    for v, near, found in zip(verdicts, neighbours, links, strict=True):
        if v["decision"] == "duplicate":
            out.append(v)
            continue
        linked = [(h, k) for h, k in zip(near, found, strict=True) if k.follows]
        target = v["target"] if v["decision"] == "update" else None
        hit = next((h for h in near if h.memory.id == target), None)
        why = next((k.why for h, k in zip(near, found, strict=True) if h.memory.id == target),
                   "it was not among its neighbours")
        guessed = (hit is not None and all(h.memory.id != target for h, _ in linked) and hit.cosine >= floor
                   and same_holder(v["candidate"]["text"], hit.memory.text, known=True))
        if guessed and hit is not None:
            linked.append((hit, Link(True, f"the verifier took it for an update (cosine {hit.cosine:.3f})",
                                     weak=True)))
        v = {**v, "follows": [h.memory.id for h, _ in linked],
             "follows_named": [h.memory.id for h, k in linked if k.named],
             "links": [f"{h.memory.id[:8]}: {k.why}" for h, k in linked]}
        if target is not None and all(h.memory.id != target or k.weak for h, k in linked):
            note = (f"the verifier said update, but only nearness links the two ({why}): both kept, the newer "
                    "first" if guessed or any(h.memory.id == target for h, _ in linked) else
                    f"the verifier said update, but the two are not about the same subject ({why})")
            v = {**_verdict(v["candidate"], v["memory_id"], "add", None, v["reason"], said=v.get("said") or "update",
                            note=note),
                 "follows": v["follows"], "follows_named": v["follows_named"], "links": v["links"]}
        out.append(v)
    return told_in_order(out)


def told_in_order(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Memories of one message that follow the same older memory follow each other in the order they were told:
    "Tom left Spotify last month. He joined Nvidia." is Spotify, then leaving it, then Nvidia (the last word on
    the subject is the newest). Told: where each stands in the user's message, not the extractor's order (the
    0.5B listed "My sister moved to Lisbon" before "I talked to my sister yesterday", and the answer check then cut
    the move as replaced)."""
    from memory.language.text import sentences

    def told_at(v: Verdict) -> int:
        said = sentences(v["candidate"].get("detail") or "")
        at = source_sentence(v["candidate"]["text"], said) if said else None
        return at if at is not None else len(said)

    order = sorted(range(len(verdicts)), key=lambda n: (told_at(verdicts[n]), n))
    out: list[Verdict] = []
    for later in (verdicts[n] for n in order):
        mine = set(later.get("follows") or [])
        told = [v["memory_id"] for v in out if mine & set(v.get("follows") or [])]
        if told:
            later = {**later, "follows": [*later.get("follows", []), *told],
                     "follows_named": [*later.get("follows_named", []), *told],
                     "links": [*later.get("links", []), *(f"{i[:8]}: told before it in the same message"
                                                          for i in told)]}
        out.append(later)
    back = {n: i for i, n in enumerate(order)}  # the verdicts in their own order again
    return [out[back[n]] for n in range(len(verdicts))]


def stated_changes(verdicts: Sequence[Verdict], neighbours: Sequence[Sequence[Hit]], gates: GateConfig,
                   links: Sequence[Sequence[Link]] | None = None) -> list[Verdict]:
    """A candidate left as ``add`` that says, in the user's words, that a fact changed ("I moved to Shanghai" beside
    "I live in Hangzhou"; "I now drive a Kia EV6 instead of the Mazda" beside "I drive a Mazda", which it is linked
    to by name) updates the closest such memory
    (:func:`memory.language.gates.states_change`): a weak verifier that answers "add" to everything must not leave both
    places current. The old memory is superseded, not deleted: its history says why, and it can be restored."""
    out: list[Verdict] = []
    retired: set[str] = set()
    for n, (v, near) in enumerate(zip(verdicts, neighbours, strict=True)):
        target = None
        if v["decision"] == "add":
            said = _said_change(v["candidate"])
            found = [Link(True, "")] * len(near) if links is None else links[n]
            target = next((h for h, k in zip(near, found, strict=True) if k.follows and h.memory.id not in retired
                           and states_change(said, h.memory.text, h.cosine, gates, linked=k.named and not k.weak)),
                          None)
        if target is None:
            out.append(v)
            continue
        retired.add(target.memory.id)
        # the history shows what the verifier said (and why), then why the rule overruled it
        out.append(_verdict(v["candidate"], v["memory_id"], "update", target, v["reason"],
                            said=v.get("said") or "none",
                            note="the message says the value changed, so it replaces the old one"))
    return out


Extracted = tuple[Extraction | None, AIMessage | None, bool]  # (parsed, raw reply, the call failed)


def _when(turn: Turn) -> str:
    """The turn's time as the extraction and verification prompts show it."""
    return clock(turn).strftime("%Y-%m-%d %H:%M %Z")


def _extraction_request(deps: Deps, ctx: Context, turn: Turn) -> tuple[BaseChatModel, list[BaseMessage]]:
    when = _when(turn)
    return deps.models.memory(ctx.chat_model), [HumanMessage(prompts.render(
        "extract", {"now": when, "message": turn["message"]}, override=ctx.prompts.get("extract")))]


def _extract(extractor: BaseChatModel, request: list[BaseMessage]) -> Extracted:
    try:
        extraction, raw = invoke_structured(extractor, request, Extraction, what="chat")
        return extraction, raw, False
    except ModelError as exc:  # the model failed: the user's statements are kept, unchecked
        # info, not warning: when the whole model is down the answer fails too and says so in one line
        log.info("memory extraction failed (%s); keeping the message's statements", exc)
        return None, None, True


TurnExtraction = tuple[BaseChatModel, list[BaseMessage], Extracted]  # (extractor, request, result)


def _extractions(deps: Deps) -> Prefetch[TurnExtraction]:
    return deps.memo("extraction_prefetch",
                     lambda: Prefetch[TurnExtraction]("palace-extract", 32, on_thread=deps.enter_turn_thread))


def _extraction(extractor: BaseChatModel, request: list[BaseMessage]) -> TurnExtraction:
    return extractor, request, _extract(extractor, request)


def prefetch_extraction(deps: Deps, ctx: Context, turn: Turn) -> None:
    """Start the turn's extraction now (ingest calls this); nothing for a message that is junk."""
    if not junk_reason(turn["message"]):
        extractor, request = _extraction_request(deps, ctx, turn)
        _extractions(deps).start(turn["id"], lambda: _extraction(extractor, request))


def extraction_of(deps: Deps, ctx: Context, turn: Turn) -> TurnExtraction:
    """The turn's extraction: the prefetched call's result when ingest started one, else a call now."""
    started = _extractions(deps).take(turn["id"])
    if started is not None:
        return started.result()
    return _extraction(*_extraction_request(deps, ctx, turn))


def make_fact_check(deps: Deps) -> Any:
    def fact_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        ctx = context_of(runtime)
        turn = turn_of(state)
        now = clock(turn)
        usage: list[Usage] = []  # appended to the turn's usage by the state's reducer
        overrides = ctx.prompts
        when = _when(turn)
        message = turn["message"]
        if junk_reason(message):  # a question, a greeting, thanks: nothing to remember, no model call
            return {"verdicts": [], "usage": usage}

        extractor, request, (extraction, raw, failed) = extraction_of(deps, ctx, turn)
        p, c = usage_of(raw, request, s.token_encoding)
        usage.append(Usage(node="fact_check.extract", model=describe(extractor)[0], prompt_tokens=p,
                           completion_tokens=c))
        parsed_as = "parsed" if extraction is not None else "unparsed"
        if extraction is None:  # nothing usable came back: keep what the message states (its junk left out)
            if not failed:
                log.warning("memory extraction returned no parseable result; keeping the message's statements")
            kept = statements(message)
            extraction = Extraction(memories=[ExtractedMemory(text=kept)] if kept else [])
        important = bool(state.get("important")) or marks_important(message)
        earlier = [e["content"] for e in state.get("window", []) if e.get("role") == "user"
                   and e.get("content") != message]
        cands = candidates_from(extraction, message, now, important=important,
                                max_tokens=s.memory_max_tokens, encoding=s.token_encoding, earlier=earlier[-6:],
                                known=[m["text"] for m in state.get("recalled", [])])
        if not cands:
            return {"verdicts": [], "usage": usage, "extraction": parsed_as}

        try:
            ltm = deps.long_term()

            def neighbours(texts: list[str]) -> tuple[list[list[Hit]], list[list[Link]]]:
                # the verifier sees the nearest few; a stated change may retire one further away: the same slot
                # said in the other language scores lower than any two memories in one language ("我搬到了北京"
                # left "I moved to Shanghai" current behind five Chinese memories in a helper's trial)
                hits = [ltm.search(turn["user_id"], v, limit=max(s.verify_neighbors, CHANGE_NEIGHBOURS))
                        for v in deps.embeddings.embed_documents(texts)]
                # a name the user's memories give a kinship word is that person ("英格丽…" after "My sister Ingrid…")
                alias = aliases([h.memory.text for near in hits for h in near] + texts)
                # a thing named in each language ("I gave up climbing" after "我周末喜欢攀岩"): the bundled e5 judges
                across = restates(deps.embeddings)
                return hits, [links_to(t, [(h.memory.text, h.cosine) for h in near], deps.links(), alias, across)
                              for t, near in zip(texts, hits, strict=True)]

            far, links = neighbours([c["text"] for c in cands])
            whole = whole_changes(cands, links, max_tokens=s.memory_max_tokens, encoding=s.token_encoding)
            if len(whole) < len(cands):  # a change told in one sentence is one memory: its links again
                cands = whole
                far, links = neighbours([c["text"] for c in cands])
            near = [hits[:s.verify_neighbors] for hits in far]
        except ServiceUnavailableError as exc:
            if exc.service != "Qdrant":
                raise
            # kept, not checked: they wait in the outbox with the turn's other writes
            log.warning("fact-check without neighbours: %s", exc)
            return {"verdicts": [_verdict(c, i, "add", None, f"not checked: {exc}") for c, i in zip(cands, ids_of(
                turn, cands), strict=True)], "usage": usage, "extraction": parsed_as}
        ids = ids_of(turn, cands)

        verdicts: dict[int, Verdict] = {}
        ask: list[int] = []
        shown: dict[int, list[Hit]] = {}  # the neighbours a verdict on each asked candidate may act on
        gates = deps.gates()
        for n, (cand, hits) in enumerate(zip(cands, near, strict=True)):
            same = next((h for h in hits if normalized(h.memory.text) == normalized(cand["text"])), None)
            if same is not None:  # said before, word for word: a duplicate without asking anyone
                verdicts[n] = _verdict(cand, ids[n], "duplicate", same, "the same text is already stored")
            elif not (judgeable := [h for h in hits if could_change(cand["text"], h.memory.text, h.cosine, gates)]):
                # nothing stored that a verdict could merge, update or dispute (the gates would turn any verdict
                # into add): no verifier call, no tokens spent, no model time on the turn's path
                verdicts[n] = _verdict(cand, ids[n], "add", None,
                                       "not asked: no stored memory is near enough for a verdict to change it")
            else:
                ask.append(n)
                shown[n] = judgeable
        if ask:
            numbered: list[Hit] = []
            for n in ask:
                for h in shown[n]:
                    if all(h.memory.id != k.memory.id for k in numbered):
                        numbered.append(h)
            existing = "\n".join(f"{k}. {h.memory.text}" for k, h in enumerate(numbered, 1))
            listed = "\n".join(f"{k}. {cands[n]['text']}" for k, n in enumerate(ask, 1))
            verifier = deps.models.verifier(ctx.verifier_model)
            request = [HumanMessage(prompts.render("verify", {"now": when, "existing": existing,
                                                              "candidates": listed},
                                                   override=overrides.get("verify")))]
            try:
                parsed, raw = invoke_structured(verifier, request, VerifierVerdicts, what="verifier")
            except ModelError as exc:  # a verifier that fails or times out cannot cost the user a fact
                log.info("verification failed (%s); the memories are stored unchecked", exc)
                parsed, raw = None, None
            p, c = usage_of(raw, request, s.token_encoding)
            usage.append(Usage(node="fact_check.verify", model=describe(verifier)[0], prompt_tokens=p,
                               completion_tokens=c))
            judged = judge_all(parsed, [cands[n] for n in ask], [ids[n] for n in ask], [shown[n] for n in ask],
                               numbered, gates)
            verdicts.update(zip(ask, judged, strict=True))
        changed = stated_changes([verdicts[n] for n in range(len(cands))], far, gates, links)
        return {"verdicts": with_links(changed, far, links, deps.links().entity_cosine), "usage": usage,
                "extraction": parsed_as}

    return fact_check
