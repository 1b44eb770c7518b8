"""LRO as a ``fastmcp`` middleware: every tool's large results are offloaded, and an
`lro_extract` tool is added to the server::

    from fastmcp import FastMCP
    from lro.fastmcp import LroMiddleware

    mcp = FastMCP("memories", middleware=[LroMiddleware({"threshold_tokens": 1600})])

The middleware works on the finished ``tools/call`` result with the core's MCP interceptor
(:func:`lro.intercept_tool_result`): the data is ``structuredContent`` when present, else the
text content; above the threshold the result becomes the descriptor as one JSON text block
(its ``resource_uri`` names the file as an MCP resource), with ``isError``, ``_meta`` and
non-text content kept; the configuration's ``mcp.structured_content`` and
``mcp.resource_link`` add the descriptor as ``structuredContent`` and a ``resource_link``
block. Because a descriptor does not match a tool's ``outputSchema``, the middleware removes
output schemas from ``tools/list`` (as the ``lro proxy`` does), so that clients do not reject
offloaded results; tools never offloaded (``mcp.never_offload``, a ``mode = "never"`` rule)
keep theirs and their results.

The extract tool is named ``lro_extract_<server>``: the middleware is built before the
server, so give the server's name as ``server_name=`` (``LroMiddleware(server_name="memories")``),
or the name itself as ``extract_tool_name=`` (or ``mcp.extract_tool_name``); with neither it
is ``lro_extract``.

Every offload file is also an MCP resource, ``lro://offloads/{file}`` (``.../records``
without the header line), for clients that cannot open ``file_path``: listed (newest first)
before the server's own resources, read by the middleware (any other URI goes to the
server), with LRO's two templates; fastmcp pages the merged list when the server sets
``list_page_size``. A client that listed resources hears
``notifications/resources/list_changed`` after each offload and after :meth:`cleanup`
removed files. ``lro_extract`` takes the URI for ``file_path``.

A tool argument given as a result handle, ``{"$lro": resource_uri, ...}`` with the extract
tool's keys and ``as`` (``json``, ``jsonl``, ``text``), is replaced by the data it names
before the tool runs (every tool but the extract tool); a handle that cannot be resolved is
answered as an error result naming the argument (a ``ToolError``), and the tool is not
called. ``lro_extract`` with ``save: true`` keeps its output as a new offload file whose
descriptor's ``resource_uri`` is such a handle.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from fastmcp.resources.base import Resource, ResourceContent, ResourceResult
from fastmcp.resources.template import ResourceTemplate
from fastmcp.server.middleware.middleware import CallNext, MiddlewareContext
from fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
from fastmcp.tools.base import Tool, ToolResult
from pydantic import TypeAdapter

from . import RESOURCE_MIME_TYPE, Config, LroError, Offloader
from ._handles import resolve_handles
from ._resources import OffloadResources, is_offload_block, is_offload_uri
from ._tool import extract_tool_function
from .mcp import _native_config, configured_extract_tool, extract_tool_name_for


class _OffloadFile(Resource):
    """An offload file in fastmcp's resource list; the middleware reads it, never fastmcp."""

    size: Optional[int] = None

    async def read(self) -> Any:
        raise RuntimeError("offload files are read by LroMiddleware")

    def to_mcp_resource(self, **overrides: Any) -> Any:
        resource = super().to_mcp_resource(**overrides)
        resource.size = self.size
        return resource


def _resource(wire: Dict[str, Any]) -> Resource:
    return _OffloadFile(
        uri=wire["uri"],
        name=wire["name"],
        title=wire.get("title"),
        description=wire.get("description"),
        mime_type=wire["mimeType"],
        size=wire.get("size"),
    )


def _template(wire: Dict[str, Any]) -> ResourceTemplate:
    return ResourceTemplate(
        uri_template=wire["uriTemplate"],
        name=wire["name"],
        title=wire.get("title"),
        description=wire.get("description"),
        mime_type=wire["mimeType"],
        parameters={},
    )

__all__ = ["LroMiddleware"]


def _blocks(wire: Any) -> List[Any]:
    """MCP content blocks (text, ``resource_link``, ...) from their wire form."""
    from mcp.types import ContentBlock

    return TypeAdapter(list[ContentBlock]).validate_python(TypeAdapter(list).validate_python(wire))  # type: ignore[valid-type]


class LroMiddleware(ToolInjectionMiddleware):
    """Offloads large tool results and injects the `lro_extract` tool.

    ``config`` is an :class:`lro.Config` or a dict of its keyword arguments, used as given
    (a dict without ``guidance`` gets the native template, which points the model at
    `lro_extract`). Without one, the configuration is the defaults with the native template
    and the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top, read when the middleware is
    created. ``on_event`` receives every event as a dict.
    """

    def __init__(
        self,
        config: Union[Config, Mapping[str, Any], None] = None,
        *,
        on_event: Optional[Callable[[Dict[str, Any]], object]] = None,
        extract_tool_name: Optional[str] = None,
        server_name: Optional[str] = None,
    ) -> None:
        resolved = _native_config(config)
        #: The extract tool's name, as injected and as descriptors name it.
        self.extract_tool_name = extract_tool_name_for(SimpleNamespace(name=server_name), resolved, extract_tool_name)
        # In the configuration too, so that `describe=true` rebuilds descriptors naming it.
        resolved = resolved.replace(mcp={**resolved.mcp, "extract_tool_name": self.extract_tool_name})
        self.offloader = Offloader(resolved, on_event=on_event)
        extract_tool_name = self.extract_tool_name
        #: The offload files as MCP resources (see the module's docs).
        self.resources = OffloadResources(self.offloader)
        offloader = self.offloader

        def answer(arguments: Dict[str, Any]) -> ToolResult:
            # The core answers (the answer alone, bounded), as every LRO surface answers.
            result = offloader.extract_tool_call(arguments)
            if result["isError"]:
                from fastmcp.exceptions import ToolError

                raise ToolError(result["content"][0]["text"])
            # Text, or with `save: true` what an offloaded result holds (a `resource_link`
            # and `structuredContent` when the configuration asks for them).
            return ToolResult(content=_blocks(result["content"]), structured_content=result.get("structuredContent"))

        definition = configured_extract_tool(resolved)
        lro_extract = extract_tool_function(answer)
        lro_extract.__annotations__["return"] = ToolResult
        tool = Tool.from_function(
            lro_extract, name=extract_tool_name, description=definition["description"], output_schema=None
        )
        # Listed in the configured form, as the core gives it: the schema derived from the
        # signature (every argument, so that none a client sends is dropped) adds a title
        # and `"default": null` to each; calls are still validated by the signature.
        tool = tool.model_copy(update={"parameters": definition["inputSchema"]})
        super().__init__([tool])

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Tool]]) -> Sequence[Tool]:
        tools = await super().on_list_tools(context, call_next)
        return [
            t
            if t.output_schema is None or t.name == self.extract_tool_name or self.offloader.config.never_offloads(t.name)
            else t.model_copy(update={"output_schema": None})
            for t in tools
        ]

    async def cleanup(self) -> Dict[str, Any]:
        """Removes expired offload files (off the event loop) and, when some were removed,
        tells the clients that listed resources; returns the cleanup report."""
        return await self.resources.cleanup()

    def _listening(self, context: MiddlewareContext[Any]) -> None:
        session = getattr(context.fastmcp_context, "session", None) if context.fastmcp_context else None
        self.resources.listening(session)

    async def on_list_resources(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Resource]]) -> Sequence[Resource]:
        self._listening(context)
        theirs = await call_next(context)
        # fastmcp pages the whole list itself (list_page_size): every offload file joins it.
        return [_resource(r) for r in await self.resources.everything()] + list(theirs)

    async def on_list_resource_templates(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[ResourceTemplate]]
    ) -> Sequence[ResourceTemplate]:
        theirs = await call_next(context)
        return [_template(t) for t in self.resources.templates()] + list(theirs)

    async def on_read_resource(self, context: MiddlewareContext[Any], call_next: CallNext[Any, ResourceResult]) -> ResourceResult:
        uri = getattr(context.message, "uri", None)
        if not is_offload_uri(uri):
            return await call_next(context)
        [contents] = (await self.resources.read(str(uri)))["contents"]
        return ResourceResult(contents=[ResourceContent(content=contents["text"], mime_type=RESOURCE_MIME_TYPE)])

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, ToolResult]) -> ToolResult:
        # The call as the client made it (its handles, not their data) is what an offload of
        # its result records.
        message = context.message
        if message.name == self.extract_tool_name:
            # The extract tool reads offload files itself: its arguments are no handles (as
            # in the `lro proxy`). A `save: true` wrote one, which a listing now shows.
            result = await super().on_call_tool(context, call_next)
            if any(is_offload_block(b) for b in result.content):
                await self.resources.changed()
            return result
        resolved = await resolve_handles(self.offloader, message.arguments)
        if resolved is not None and "result" in resolved:
            from fastmcp.exceptions import ToolError

            # The tool is not called: the model reads which argument and why.
            raise ToolError(resolved["result"]["content"][0]["text"])
        if resolved is not None:
            context = context.copy(message=message.model_copy(update={"arguments": resolved["arguments"]}))
        result = await super().on_call_tool(context, call_next)
        wire: Dict[str, Any] = {
            "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
        }
        if result.structured_content is not None:
            wire["structuredContent"] = result.structured_content
        try:
            intercepted = self.offloader.intercept_tool_result(
                wire, message.name, arguments=dict(message.arguments or {}), extract_tool=self.extract_tool_name
            )
        except LroError:
            # Offloading is an optimisation: a result LRO cannot read goes back unchanged.
            return result
        if intercepted["action"] not in ("offloaded", "truncated"):
            return result
        rewritten = intercepted["result"]
        blocks = _blocks(rewritten["content"])
        if intercepted["action"] == "offloaded" or any(is_offload_block(b) for b in rewritten["content"]):
            await self.resources.changed()
        return ToolResult(content=blocks, structured_content=rewritten.get("structuredContent"), meta=result.meta)
