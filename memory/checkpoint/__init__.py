"""LangGraph checkpoint savers on plain Redis (no modules): ``RedisSaver`` (sync) and ``AsyncRedisSaver``."""

from memory.checkpoint.aio import AsyncRedisSaver
from memory.checkpoint.base import SaverConfig
from memory.checkpoint.sync import RedisSaver

__all__ = ["AsyncRedisSaver", "RedisSaver", "SaverConfig"]
