"""Deterministic gates on the verifier's verdicts (pure logic, no model): what a verdict may do to memory.

A model's verdict is untrusted input. ``duplicate`` may merge a candidate into an existing memory only when the
two say the same thing (cosine at least the embedder's duplicate threshold, the same numbers, and the candidate's
content words almost all in the existing memory: a duplicate that adds detail is stored). ``update`` and
``conflict`` may retire or dispute an existing memory only when both are about the same thing: the same slot
(where the user lives, works, their favourite book, their sister's name, ...) for the same person, or, for facts
no slot covers, mostly the same content words. A verdict that fails its gate, or whose reason argues for another
decision, becomes ``add``: both memories stay, nothing is lost.

Thresholds are per embedder (the bundled e5's cosines sit in a narrow band: unrelated sentences score ~0.8);
``tests/data/gate_pairs.py`` holds the labelled English and Chinese pairs they are calibrated on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.language.change import says_change
from memory.language.facts import nothing_else, split_facts
from memory.language.links import entities, holders, named_things, openers, same_holder
from memory.language.slots import single_valued_slots, slots
from memory.language.words import content_units, grounding_units


@dataclass(frozen=True)
class GateConfig:
    duplicate_cosine: float  # at least this similar to be the same statement
    topic_cosine: float  # at least this similar to be about the same thing (with shared words)
    slot_cosine: float = 0.0  # with the same slot of the same person (the stronger evidence); 0: topic_cosine
    duplicate_coverage: float = 0.6  # share of the candidate's content units the existing memory must contain
    topic_overlap: float = 0.5  # Jaccard of content units when no slot names the subject


# Calibrated on tests/data/gate_pairs.py: e5 duplicates >= 0.988, same-thing pairs 0.887-0.972 in one language and
# 0.805-0.831 across English and Chinese (a slot in common), other 0.756-0.936.
GATES_BY_EMBEDDER: dict[str, GateConfig] = {
    "e5": GateConfig(duplicate_cosine=0.97, topic_cosine=0.85, slot_cosine=0.78),
}
# For an embedder that is not calibrated: OpenAI-style models spread cosines widely (unrelated ~0.1-0.3).
DEFAULT_GATES = GateConfig(duplicate_cosine=0.9, topic_cosine=0.5, slot_cosine=0.5)


def gates_for(embedder: str) -> GateConfig:
    """The calibrated gates of an embedder (by name: "e5" for the bundled one), else the generic ones."""
    key = embedder.lower()
    return next((g for name, g in GATES_BY_EMBEDDER.items() if name in key), DEFAULT_GATES)


_NUMBER = re.compile(r"\d+")


def _squeezed(text: str) -> str:
    return re.sub(r"[\s.。!！,，;；]+", "", text.lower())


def _subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def drops_slot(candidate: str, message: str, held: frozenset[str] = frozenset()) -> bool:
    """Is ``candidate`` one of the message's statements with words left out, among them what said what it is
    about, a name (:func:`memory.language.links.entities`: capitalised, with digits, Latin in Chinese), or who?
    The extractor wrote "我在杭州" for "我住在杭州": the memory no longer says where the user lives, so a later
    "我搬到了上海" cannot retire it; and "I just started a new job" for "I just started a new job at Stripe.".
    The user's own clause is kept instead (fact_check). ``held``: the slots the turn's other candidates hold (a
    one-valued slot one of them keeps is not lost)."""
    short = _squeezed(re.sub(r"^\s*用户", "我", candidate))  # the extractor's third person is the user's "I"
    if not short:
        return False
    units = grounding_units(candidate)
    for clause in split_facts(message):
        long = _squeezed(clause)
        # the words left out said what it is about (a slot) or held a name: "I just started a new job" for "I just
        # started a new job at Stripe." keeps the change and loses its value
        if len(short) < len(long) and _subsequence(short, long) and (
                slots(clause) - slots(candidate) or entities(clause) - entities(candidate) - openers(clause)):
            return True
        # or it lost who the statement is about: "我喜欢小梅，她在北京读大学" for "我妹妹叫小梅，她在北京读大学",
        # "Mei's name is Mei" for "My sister's name is Mei"
        # or a one-valued slot: "I like the novel 'One Hundred Years of Solitude'" for "My favourite book is One
        # Hundred Years of Solitude" can never be retired by a new favourite
        lost = _people(clause) - _people(candidate) - {"self"}
        lost_slots = single_valued_slots(clause) - slots(candidate) - held
        if (lost or lost_slots) and units and len(units & grounding_units(clause)) / len(units) >= 0.5:
            return True
    return False


def _people(text: str) -> set[str]:
    return {k.split(":", 1)[0] for k in slots(text)}


_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing)\b|n't|[不没别未无]", re.IGNORECASE)


def subsumed(short: str, long: str) -> bool:
    """Does ``long`` say all that ``short`` says, about the same things? Two candidates of one turn: "I love tea"
    and "I love green tea", "我喜欢书《红楼梦》" and "我最喜欢的书是《红楼梦》" (the extractor's restatement). Every
    number and slot of ``short`` is in ``long``, and its words all are, or it is ``long`` with words left out."""
    a, b = _squeezed(short), _squeezed(long)
    if not a or len(a) >= len(b) or not set(_NUMBER.findall(short)) <= set(_NUMBER.findall(long)):
        return False
    if not slots(short) <= slots(long) or len(_NEGATION.findall(short)) != len(_NEGATION.findall(long)):
        return False  # "I like tea" is not in "I do not like tea anymore"
    units = grounding_units(short)
    if not units:
        return False
    coverage = len(units & grounding_units(long)) / len(units)
    return coverage == 1.0 or (coverage >= 0.5 and _subsequence(a, b))


def states_change(candidate: str, existing: str, cosine: float, config: GateConfig, *, linked: bool = False) -> bool:
    """Does ``candidate`` say, in the user's words, that the value ``existing`` holds has changed? The candidate
    names the change ("moved", "now", "现在", "搬到"...), the existing memory says one fact and nothing else
    (retiring it retires nothing else), and both are about the same thing of the same person: the same one-valued
    slot where the slot table knows it (and the topic test passes), or, for any other subject, ``linked``: the two
    share what names it (a :class:`memory.language.links.Link` by an entity, not by nearness alone: "Mazda",
    "乌龙茶") and the candidate names a thing the existing memory lacks, the new value ("I switched from the Mazda
    to a Kia EV6", "我不喝乌龙茶了，现在改喝咖啡"; "My Mazda is now at the garage" names none and retires nothing). A
    rule, not a model's verdict: a weak verifier that answers "add" must not leave two values both current."""
    if not says_change(candidate) or not nothing_else(existing):
        return False
    if single_valued_slots(candidate) & single_valued_slots(existing) and same_subject(candidate, existing, cosine,
                                                                                        config)[0]:
        return True
    return linked and same_holder(candidate, existing, known=True) and bool(new_values(candidate, existing))


def new_values(candidate: str, existing: str) -> frozenset[str]:
    """The things ``candidate`` names that ``existing`` does not (entities, Chinese nouns; not the people either is
    about): what a stated change changed to."""
    people = holders(candidate) | holders(existing)
    return frozenset(w for w in named_things(candidate) - named_things(existing) - people
                     if w not in existing.lower())


def _units(text: str) -> set[str]:
    return {u for u in content_units(text) if not u.isdigit()}


def same_statement(candidate: str, existing: str, cosine: float, config: GateConfig) -> tuple[bool, str]:
    """May ``candidate`` be merged into ``existing`` as a duplicate? (ok, why not)."""
    if cosine < config.duplicate_cosine:
        return False, f"not similar enough to be the same (cosine {cosine:.3f} < {config.duplicate_cosine})"
    if set(_NUMBER.findall(candidate)) != set(_NUMBER.findall(existing)):
        return False, "the numbers differ"
    a, b = slots(candidate), slots(existing)
    if a and b and not a & b:
        return False, "they are about different things"
    units = _units(candidate)
    if units:
        coverage = len(units & _units(existing)) / len(units)
        if coverage < config.duplicate_coverage:
            return False, f"the candidate adds detail ({coverage:.0%} of its words are in the memory)"
    return True, ""


def same_subject(candidate: str, existing: str, cosine: float, config: GateConfig) -> tuple[bool, str]:
    """May ``candidate`` update or dispute ``existing``: are both about the same thing? (ok, why not). A slot in
    common (the same person's residence, passport, favourite book...) is the stronger evidence and needs only
    ``slot_cosine``: a fact restated in the other language scores lower (e5: 0.81 for the same passport in English
    and Chinese)."""
    a, b = slots(candidate), slots(existing)
    needed = config.slot_cosine or config.topic_cosine if a & b else config.topic_cosine
    if cosine < needed:
        return False, f"not about the same thing (cosine {cosine:.3f} < {needed})"
    if a or b:
        if a & b:
            return True, ""
        return False, "they are about different things"
    ua, ub = _units(candidate), _units(existing)
    overlap = len(ua & ub) / len(ua | ub) if ua | ub else 0.0
    if overlap >= config.topic_overlap:
        return True, ""
    return False, f"they share too few words to be about the same thing ({overlap:.0%})"


def could_change(candidate: str, existing: str, cosine: float, config: GateConfig) -> bool:
    """Could any verdict act on ``existing`` (merge into it, update or dispute it)? If not, a verifier's answer
    about the pair cannot change memory: the gates would make it add."""
    return same_statement(candidate, existing, cosine, config)[0] or same_subject(candidate, existing, cosine,
                                                                                  config)[0]


_ARGUES = {
    "add": re.compile(r"\b(new (information|fact)|unrelated|not related|different (topic|thing|subject|fact|"
                      r"information)|no (relation|overlap)|not the same|does not (contradict|conflict|match|"
                      r"repeat)|doesn'?t (contradict|conflict|match)|no conflict|not a duplicate|not duplicate|"
                      r"independent)\b|不相关|无关|新信息|不同的|不是同一|没有冲突|不矛盾|不重复", re.IGNORECASE),
    "duplicate": re.compile(r"\b(same (thing|fact|information)|already (stored|known|says)|duplicate|identical|"
                            r"repeats?)\b|重复|相同|一样", re.IGNORECASE),
    "update": re.compile(r"\b(update[sd]?|changed|moved|now|replaces?|no longer|anymore)\b|更新|变了|搬|现在|不再",
                         re.IGNORECASE),
    "conflict": re.compile(r"\b(conflicts?|contradicts?|contradiction|inconsistent|disagree\w*)\b|冲突|矛盾|不一致",
                           re.IGNORECASE),
}


def reason_contradicts(decision: str, reason: str) -> bool:
    """The verdict's own reason argues for "add" while the decision is another one ("conflict" decided with
    "no conflict", "duplicate" decided with "this is new information"), or names only another decision."""
    if decision == "add" or not reason.strip():
        return False
    if _ARGUES["add"].search(reason):
        return True
    named = {d for d, pattern in _ARGUES.items() if d != "add" and pattern.search(reason)}
    if not named or decision in named:
        return False
    same_thing = {"update", "conflict"}  # either says both memories are about one thing
    return not (decision in same_thing and named <= same_thing)


@dataclass(frozen=True)
class Gated:
    decision: str  # the decision that is carried out
    note: str  # empty when the verdict passed; else why it became "add"


def gate(decision: str, reason: str, candidate: str, existing: str | None, cosine: float | None,
         config: GateConfig) -> Gated:
    """The decision a verdict may carry out on ``existing`` (None for add)."""
    if decision == "add" or existing is None or cosine is None:
        return Gated("add", "")
    if reason_contradicts(decision, reason):
        return Gated("add", f"the verifier said {decision} but its reason says otherwise ({reason.strip()[:80]!r})")
    if decision == "duplicate":
        ok, why = same_statement(candidate, existing, cosine, config)
    else:
        ok, why = same_subject(candidate, existing, cosine, config)
    return Gated(decision, "") if ok else Gated("add", f"the verifier said {decision}, but {why}")
