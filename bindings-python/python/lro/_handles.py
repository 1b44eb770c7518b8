"""Result handles in tool arguments, as ``lro.mcp`` and ``lro.fastmcp`` resolve them.

An argument value ``{"$lro": resource_uri or file_path, "where"?, "query"?, ..., "as"?}``
names an offloaded result (or a slice of it); it is replaced by that data before the tool
runs, so an agent passes a result on without reading it into its context. The logic is the
core's (:meth:`lro.Offloader.resolve_tool_call`: the grammar, the limits, the error every
surface answers); this module only keeps calls without a handle off the thread pool and runs
the others off the event loop.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import anyio.to_thread

from . import Offloader

#: The key that makes an object a handle.
HANDLE_KEY = "$lro"


def may_hold_handles(arguments: Any) -> bool:
    """Whether some mapping in ``arguments`` has a string ``"$lro"``: the core decides the
    rest. Calls without one (nearly all) cost this walk, not a trip to a worker thread."""
    stack: List[Any] = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            if isinstance(value.get(HANDLE_KEY), str):
                return True
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


async def resolve_handles(offloader: Offloader, arguments: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """``None`` when ``arguments`` hold no handle (call the tool with them as given), else
    the core's answer: ``{"arguments": ...}`` with every handle replaced by its data, or
    ``{"result": ...}``, the ``isError`` ``CallToolResult`` to answer instead of calling the
    tool (with ``"code"`` and ``"argument"``)."""
    if arguments is None or not may_hold_handles(arguments):
        return None
    # Off the event loop: a handle may filter a large file (bounded by the extraction's
    # time limit and `extract.handle_max_bytes`).
    resolved: Optional[Dict[str, Any]] = await anyio.to_thread.run_sync(offloader.resolve_tool_call, dict(arguments))
    return resolved
