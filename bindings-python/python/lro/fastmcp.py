"""LRO as a ``fastmcp`` middleware: every tool's large results are offloaded, and an
`lro_extract` tool is added to the server::

    from fastmcp import FastMCP
    from lro.fastmcp import LroMiddleware

    mcp = FastMCP("memories", middleware=[LroMiddleware({"threshold_tokens": 1600})])

The middleware works on the finished ``tools/call`` result with the core's MCP interceptor
(:func:`lro.intercept_tool_result`): the data is ``structuredContent`` when present, else the
text content; above the threshold the result becomes the descriptor (``structuredContent``
and JSON text), with ``isError``, ``_meta`` and non-text content kept. Because a descriptor
does not match a tool's ``outputSchema``, the middleware removes output schemas from
``tools/list`` (as the ``lro proxy`` does), so that clients do not reject offloaded results.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

from fastmcp.server.middleware.middleware import CallNext, MiddlewareContext
from fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
from fastmcp.tools.base import Tool, ToolResult
from pydantic import TypeAdapter

from . import Config, LroError, Offloader
from ._tool import extract_tool_function
from .mcp import EXTRACT_TOOL_DESCRIPTION, _native_config

__all__ = ["LroMiddleware"]


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
        extract_tool_name: str = "lro_extract",
    ) -> None:
        self.offloader = Offloader(_native_config(config), on_event=on_event)
        self.extract_tool_name = extract_tool_name
        offloader = self.offloader

        def answer(file_path: str, request: Dict[str, Any]) -> Dict[str, Any]:
            try:
                return offloader.extract(file_path, request=request)
            except LroError as err:
                from fastmcp.exceptions import ToolError

                raise ToolError(f"{err.code}: {err}") from err

        lro_extract = extract_tool_function(answer)
        lro_extract.__annotations__["return"] = Dict[str, Any]
        tool = Tool.from_function(
            lro_extract, name=extract_tool_name, description=EXTRACT_TOOL_DESCRIPTION, output_schema=None
        )
        super().__init__([tool])

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Tool]]) -> Sequence[Tool]:
        tools = await super().on_list_tools(context, call_next)
        return [
            t if t.output_schema is None or t.name == self.extract_tool_name else t.model_copy(update={"output_schema": None})
            for t in tools
        ]

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, ToolResult]) -> ToolResult:
        result = await super().on_call_tool(context, call_next)
        message = context.message
        if message.name == self.extract_tool_name:
            return result
        wire: Dict[str, Any] = {
            "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
        }
        if result.structured_content is not None:
            wire["structuredContent"] = result.structured_content
        try:
            intercepted = self.offloader.intercept_tool_result(
                wire, message.name, arguments=dict(message.arguments or {})
            )
        except LroError:
            # Offloading is an optimisation: a result LRO cannot read goes back unchanged.
            return result
        if intercepted["action"] not in ("offloaded", "truncated"):
            return result
        rewritten = intercepted["result"]
        content = TypeAdapter(list).validate_python(rewritten["content"])
        from mcp.types import ContentBlock

        blocks = TypeAdapter(list[ContentBlock]).validate_python(content)  # type: ignore[valid-type]
        return ToolResult(content=blocks, structured_content=rewritten.get("structuredContent"), meta=result.meta)
