"""Offload files as MCP resources, as ``lro.mcp`` and ``lro.fastmcp`` serve them.

The logic is the core's (:meth:`lro.Offloader.list_resources`, :meth:`read_resource`, the
URI scheme, the JSON-RPC codes); this module only runs it off the event loop and remembers
which client sessions want to hear that the list changed: those that asked for it
(``resources/list``). A session that never listed resources has no list to refresh.
"""

from __future__ import annotations

import importlib
import logging
import weakref
from typing import Any, Awaitable, Callable, Dict, List, Optional

import anyio.to_thread

from . import RESOURCE_TEMPLATES, RESOURCE_URI_PREFIX, LroError, Offloader, resource_error_code

logger = logging.getLogger("lro")


def is_offload_uri(uri: Any) -> bool:
    """Whether ``uri`` lies in the space LRO serves (``lro://offloads/...``)."""
    return str(uri).startswith(RESOURCE_URI_PREFIX)


def is_offload_link(block: Any) -> bool:
    """Whether a content block (a model or a dict) is LRO's link to an offload file."""
    if isinstance(block, dict):
        kind, uri = block.get("type"), block.get("uri")
    else:
        kind, uri = getattr(block, "type", None), getattr(block, "uri", None)
    return kind == "resource_link" and uri is not None and is_offload_uri(uri)


def is_offload_block(block: Any) -> bool:
    """Whether a content block (a model or a dict) is LRO's: the descriptor's text (what an
    offloaded result holds by default, compact JSON that opens with ``{"offloaded":true``)
    or a link to an offload file (with ``mcp.resource_link``)."""
    if isinstance(block, dict):
        kind, text = block.get("type"), block.get("text")
    else:
        kind, text = getattr(block, "type", None), getattr(block, "text", None)
    if kind == "text":
        return isinstance(text, str) and text.startswith('{"offloaded":true')
    return is_offload_link(block)


def mcp_error(err: LroError) -> Exception:
    """The SDK's protocol error for a failed resource request, with the JSON-RPC code of its
    LRO code (``not_found`` -32002, ``path_denied``/``invalid_argument`` -32602)."""
    code, message = resource_error_code(err.code), f"{err.code}: {err}"
    exceptions: Any = importlib.import_module("mcp.shared.exceptions")
    if hasattr(exceptions, "MCPError"):  # mcp 2.x
        return exceptions.MCPError(code=code, message=message)  # type: ignore[no-any-return]
    types: Any = importlib.import_module("mcp.types")  # mcp 1.x
    return exceptions.McpError(types.ErrorData(code=code, message=message))  # type: ignore[no-any-return]


class OffloadResources:
    """The offload files of one offloader as MCP resources, and who hears of changes."""

    def __init__(self, offloader: Offloader) -> None:
        self.offloader = offloader
        # Sessions are the SDK's objects; a closed session is forgotten with it.
        self._listeners: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._publishers: List[Callable[[], Awaitable[None]]] = []

    @staticmethod
    def templates() -> List[Dict[str, Any]]:
        """The two templates, as ``resources/templates/list`` entries (wire form)."""
        return [dict(t) for t in RESOURCE_TEMPLATES]

    async def page(self, cursor: Optional[str]) -> Dict[str, Any]:
        """One page of offload files (wire form); a bad cursor raises the SDK's error."""
        try:
            return await anyio.to_thread.run_sync(self.offloader.list_resources, cursor)
        except LroError as err:
            raise mcp_error(err) from err

    async def everything(self) -> List[Dict[str, Any]]:
        """Every offload file, page after page (for frameworks that paginate themselves)."""
        resources: List[Dict[str, Any]] = []
        cursor = None
        while True:
            page = await self.page(cursor)
            resources.extend(page["resources"])
            cursor = page.get("nextCursor")
            if cursor is None:
                return resources

    async def read(self, uri: str) -> Dict[str, Any]:
        """``{"contents": [...]}`` of an offload URI; any failure raises the SDK's error."""
        try:
            return await anyio.to_thread.run_sync(self.offloader.read_resource, uri)
        except LroError as err:
            raise mcp_error(err) from err

    def listening(self, session: Any) -> None:
        """``session`` asked for the list: its connection hears of changes from now on. (mcp
        2.x makes a session object per request, over the connection's; 1.x one per
        connection.)"""
        connection = getattr(session, "_connection", session)
        if connection is not None:
            self._listeners.add(connection)

    def publish_with(self, publish: Callable[[], Awaitable[None]]) -> None:
        """Also calls ``publish`` on a change (the SDK's `subscriptions/listen` bus)."""
        self._publishers.append(publish)

    async def changed(self) -> None:
        """Tells every session that asked (and every subscription bus) that the list changed.
        Best effort: a session that went away is skipped."""
        for session in list(self._listeners):
            try:
                await session.send_resource_list_changed()
            except Exception as err:  # noqa: BLE001 - a notification never fails a call
                logger.debug("lro: resources/list_changed not delivered: %r", err)
        for publish in self._publishers:
            try:
                await publish()
            except Exception as err:  # noqa: BLE001
                logger.debug("lro: resources/list_changed not published: %r", err)

    async def cleanup(self) -> Dict[str, Any]:
        """Removes expired offload files and, when some were removed, tells the listeners."""
        report: Dict[str, Any] = await anyio.to_thread.run_sync(self.offloader.cleanup)
        if report["removed"]:
            await self.changed()
        return report
