"""Readers for the public evaluation data in ``../shared/data`` (see its README): LoCoMo and MemoryBank.

The data is read in place, never copied into the repository. Every defect the data README lists is normalised
here, in one place, so every system is scored on exactly the same questions.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
CATEGORY_ORDER = ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")
DAY = timedelta(days=1)


class DataMissingError(RuntimeError):
    """The evaluation data is not where the benchmark looks for it."""


def data_root() -> Path:
    """``$PALACE_BENCH_DATA`` or ``../shared/data`` next to the repository."""
    configured = os.environ.get("PALACE_BENCH_DATA")
    root = Path(configured) if configured else Path(__file__).resolve().parents[2] / "shared" / "data"
    if not root.is_dir():
        raise DataMissingError(f"evaluation data not found at {root}: set PALACE_BENCH_DATA to the shared data dir")
    return root


# --- LoCoMo ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: datetime  # the session's date_time (UTC: the data has no zone)

    def memory_text(self) -> str:
        """What every system indexes: the speaker's name and the words (an image's caption in brackets)."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    question: str
    category: str
    evidence: tuple[str, ...]


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        """The protocol's query time: the last session + 1 day."""
        return max(t.at for t in self.turns) + DAY


_EVIDENCE_ID = re.compile(r"^D(\d+):(\d+)$")


def clean_evidence(raw: list[str], known: set[str]) -> tuple[str, ...]:
    """Split malformed strings, fix ``D:11:26`` and zero padding, drop empty and unknown ids (data README)."""
    ids: list[str] = []
    for item in raw:
        for part in re.split(r"[;\s]+", str(item)):
            part = part.strip()
            if part.startswith("D:"):
                part = "D" + part[2:]
            match = _EVIDENCE_ID.match(part)
            if not match:
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id in known and dia_id not in ids:
                ids.append(dia_id)
    return tuple(ids)


def parse_locomo_time(value: str) -> datetime:
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_locomo(root: Path | None = None) -> list[Conversation]:
    path = (root or data_root()) / "locomo" / "locomo10.json"
    if not path.is_file():
        raise DataMissingError(f"LoCoMo not found at {path}")
    conversations: list[Conversation] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = Conversation(sample_id=sample["sample_id"])
        raw = sample["conversation"]
        sessions = sorted(int(k.split("_")[1]) for k in raw if re.fullmatch(r"session_\d+", k))
        for n in sessions:  # date_time keys with no session (conv-26) are ignored: only sessions are read
            at = parse_locomo_time(raw[f"session_{n}_date_time"])
            for turn in raw[f"session_{n}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text = f"{text} [shares a photo: {turn['blip_caption']}]"
                conv.turns.append(Turn(dia_id=turn["dia_id"], speaker=turn["speaker"], text=text, at=at))
        known = {t.dia_id for t in conv.turns}
        for qa in sample["qa"]:
            evidence = clean_evidence(qa.get("evidence", []), known)
            if evidence:  # 4 questions have no evidence at all: not scorable
                conv.questions.append(Question(question=str(qa["question"]), category=CATEGORIES[qa["category"]],
                                               evidence=evidence))
        conversations.append(conv)
    return conversations


# --- MemoryBank ------------------------------------------------------------------------------------
LANGUAGES = {"en": "en", "zh": "cn"}  # our language code -> the data's directory/file suffix
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"], 1)}
_EN_DATE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_ZH_DATE = re.compile(r"(\d{1,2})月(\d{1,2})[日号]")


@dataclass(frozen=True)
class Exchange:
    user: str
    day: date
    query: str
    response: str

    def memory_text(self) -> str:
        return f"{self.query}\n{self.response}"


@dataclass(frozen=True)
class DatedQuestion:
    user: str
    question: str
    day: date  # the day the question names


@dataclass
class MemoryBank:
    language: str
    exchanges: list[Exchange]
    dated: list[DatedQuestion]

    def users(self) -> list[str]:
        return sorted({e.user for e in self.exchanges} | {q.user for q in self.dated})

    def now(self, user: str) -> datetime:
        days = [e.day for e in self.exchanges if e.user == user]
        return noon(max(days)) + DAY


def noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def named_day(question: str, year: int) -> date | None:
    """The calendar day a question names ("May 5th", "5月5日"), independent of the product's time parser."""
    match = _EN_DATE.search(question)
    if match:
        return date(year, _MONTHS[match.group(1).lower()], int(match.group(2)))
    match = _ZH_DATE.search(question)
    if match:
        return date(year, int(match.group(1)), int(match.group(2)))
    return None


def load_memorybank(language: str, root: Path | None = None) -> MemoryBank:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    suffix = LANGUAGES[language]
    base = (root or data_root()) / "memorybank" / "eval_data" / suffix
    bank_path, questions_path = base / f"memory_bank_{suffix}.json", base / f"probing_questions_{suffix}.jsonl"
    for path in (bank_path, questions_path):
        if not path.is_file():
            raise DataMissingError(f"MemoryBank file not found: {path}")
    exchanges: list[Exchange] = []
    for raw_user, record in json.loads(bank_path.read_text(encoding="utf-8")).items():
        user = raw_user.strip()  # English keys carry stray spaces
        for day_text, items in sorted(record.get("history", {}).items()):
            day = date.fromisoformat(day_text)
            exchanges.extend(Exchange(user=user, day=day, query=str(i.get("query", "")),
                                      response=str(i.get("response", ""))) for i in items)
    year = min(e.day for e in exchanges).year
    dated: list[DatedQuestion] = []
    for line in _lines(questions_path):
        for raw_user, questions in json.loads(line).items():
            for q in questions:
                named = named_day(q, year)
                if named is not None:
                    dated.append(DatedQuestion(user=raw_user.strip(), question=q, day=named))
    return MemoryBank(language=language, exchanges=exchanges, dated=dated)


def _lines(path: Path) -> Iterator[str]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield line
