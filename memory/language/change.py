"""A stated change: the user says that a value changed ("I moved to Shanghai", "I now work at ...", "我搬到了上海",
"我现在在医院工作"), in English and Chinese (pure logic, no model). One definition, read by the gates (a stated
change may retire the one-valued fact it replaces), the links (a change follows what it replaced) and recall (a
question about now finds the memory that states the change of what it asks about)."""

from __future__ import annotations

import re

# The words that say some value changed, whatever the value: "now", "no longer", "现在", "换了"; and the verbs that
# end having or doing something ("I sold the Corolla and bought a blue Volkswagen ID.3": a fourth new user's trial
# left the Corolla current): the grammar of change, not its subjects.
_ANY = re.compile(r"\b(moved|moving|relocated|now|no longer|anymore|any more|changed|switched|new (job|home|"
                  r"address|number|phone|email|school|favou?rite)|started (working|a new job)|these days|"
                  r"sold|gave away|got rid of|traded in|swapped|replaced)\b"
                  r"|现在|搬到|搬去|搬家|换了|换成|改成|改为|跳槽|不再|新工作|新家|如今|目前|卖了|卖掉|送人了",
                  re.IGNORECASE)

# The words that say one state changed, by what names the state in a question ("where do I live now" / "I moved
# to Shanghai", "我住在哪" / "我搬到上海了"): a memory recording the change rarely repeats the question's word. A
# pattern on the memory, not words added to a query: "Meeting moved to Friday" shares "moved" but states no move.
_NOT_A_PLACE = (r"(?!(the\s+)?(next\s+|this\s+)?"
                r"((mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|today|tonight|next|later)\b)")
# Each state in both languages: a question in one may be answered by a memory in the other ("我现在住在哪个城市？"
# beside "I just moved from Rotterdam to Utrecht": a fourth new user's trial).
_OF_STATE: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\b(live[sd]?|living|home|address)\b|住", re.IGNORECASE),
     re.compile(r"\b(moved|moving|relocated|relocating)\s+(back\s+)?(from\s+[^,.;!?]{1,40}?\s+)?(to|into)\s+"
                + _NOT_A_PLACE + r"|搬(家|到|去|进)", re.IGNORECASE)),
    (re.compile(r"\b(job|work(s|ing)?|employer)\b|工作|上班", re.IGNORECASE),
     re.compile(r"\b(joined|hired\s+(by|at|as)|new\s+job|started\s+(a\s+new\s+job|working)|quit\s+my\s+job)\b|"
                r"入职|跳槽|新工作|辞职|换工作", re.IGNORECASE)),
)


# "now" closing a duration says how long a state has lasted, not that it changed: "been doing it for 6 years now"
_LASTED = re.compile(r"\bfor\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|"
                     r"a couple of|several|many|some)\s+(?:\w+\s+)?(?:years?|months?|weeks?|days?|decades?)\s+now\b",
                     re.IGNORECASE)


def says_change(text: str) -> bool:
    """Does ``text`` say that a value changed ("moved", "now", "现在", "搬到", "跳槽", "joined", "入职")? A "now"
    closing how long something has lasted ("for 6 years now") says none."""
    text = _LASTED.sub(" ", text)
    return bool(_ANY.search(text)) or any(change.search(text) for _, change in _OF_STATE)


def changes_of(question: str) -> tuple[re.Pattern[str], ...]:
    """What states a change of the state ``question`` asks about (where the user lives, works), in a memory;
    empty when it asks about no such state."""
    return tuple(change for names, change in _OF_STATE if names.search(question))
