"""``PalaceRetriever``: one user's memories as a LangChain retriever, ranked by the product's recall (hybrid
dense + BM25 relevance, time intent, decay, importance), so any LangChain chain can use the memory.

It searches through a door: :class:`doors.door.LocalDoor` on this process's stores, or
:class:`doors.client.PalaceClient` on a running ``palace serve``. Each document's metadata carries the memory id,
its score's parts, its status and its recorded and event times.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


@runtime_checkable
class Searcher(Protocol):
    def search(self, user_id: str, query: str, *, limit: int | None = None) -> list[dict[str, Any]]: ...


class PalaceRetriever(BaseRetriever):
    """``PalaceRetriever(door=LocalDoor(deps), user_id="alice", k=5).invoke("where do I live?")``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    door: Searcher
    user_id: str
    k: int = 5

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        rows = self.door.search(self.user_id, query, limit=self.k)
        return [Document(page_content=r["text"], id=r["id"], metadata={k: v for k, v in r.items() if k != "text"})
                for r in rows]
