"""A stated change: the user says that a value changed ("I moved to Shanghai", "I now work at ...", "我搬到了上海",
"我现在在医院工作"), in English and Chinese (pure logic, no model)."""

from __future__ import annotations

import re

_CHANGE = re.compile(r"\b(moved|moving|relocated|now|no longer|anymore|any more|changed|switched|new (job|home|"
                     r"address|number|phone|email|school|favou?rite)|started (working|a new job)|these days)\b"
                     r"|现在|搬到|搬去|搬家|换了|换成|改成|改为|跳槽|不再|新工作|新家|如今|目前", re.IGNORECASE)


def says_change(text: str) -> bool:
    """Does ``text`` say that a value changed ("moved", "now", "现在", "搬到", "跳槽")?"""
    return bool(_CHANGE.search(text))
