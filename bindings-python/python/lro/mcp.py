"""LRO for tools of the official MCP Python SDK (``mcp``).

The SDK's high-level server is ``mcp.server.mcpserver.MCPServer`` in ``mcp`` 2.x (it was
``mcp.server.fastmcp.FastMCP`` in 1.x; both have the same ``tool()`` / ``add_tool()``, and
both work here)::

    from mcp.server.mcpserver import MCPServer
    from lro.mcp import LroTools

    server = MCPServer("memories")
    lro_tools = LroTools(server)            # registers the `lro_extract` tool

    @lro_tools.tool()                        # = @server.tool(), plus offloading
    def recall_memories(query: str, detail: str = "light") -> list[dict]:
        return store.recall(query)

A result above the threshold is written to JSONL and the tool returns the descriptor
(``structuredContent``, and as JSON text in ``content``); smaller results go back
untouched. ``detail`` and ``query`` arguments of the tool, when it has them, become the
request's. Descriptors carry the native guidance, which points the model at
``lro_extract``.

An offloading tool does not publish an ``outputSchema``: the descriptor would not match it
(the same choice the ``lro proxy`` makes). Offloading never fails a tool: a result LRO
cannot read as JSON is returned as it is.
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar, Union

from . import EXTRACT_TOOL_DESCRIPTION, Config, InputError, LroError, Offloader, operation_for_tool

__all__ = ["LroTools", "EXTRACT_TOOL_DESCRIPTION"]

F = TypeVar("F", bound=Callable[..., Any])


def _tool_error(message: str) -> Exception:
    """The SDK's ToolError (reported to the client as an error result), whichever major version."""
    for module in ("mcp.server.mcpserver.exceptions", "mcp.server.fastmcp.exceptions"):
        try:
            return getattr(__import__(module, fromlist=["ToolError"]), "ToolError")(message)  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    return RuntimeError(message)


def _call_tool_result(payload: Dict[str, Any]) -> Any:
    """A CallToolResult with ``payload`` as structuredContent and as JSON text."""
    from mcp.types import CallToolResult, TextContent

    text = json.dumps(payload, indent=2, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


def _native_config(config: Union[Config, Mapping[str, Any], None]) -> Config:
    """The helpers' configuration: the native guidance template unless one was chosen.

    A :class:`Config`, or a mapping with values, is what the caller built (the environment is
    not read). No configuration (``None``, or only ``None`` values) is the default one, as
    everywhere: the defaults, native guidance, then the ``ATLATL_PROMPT__OFFLOAD__*``
    environment on top, read now (as ``lro proxy`` reads it: the environment's guidance wins).
    """
    if isinstance(config, Config):
        return config
    settings = {key: value for key, value in dict(config or {}).items() if value is not None}
    if not settings:
        return Config(guidance="native").with_env()
    settings.setdefault("guidance", "native")
    return Config(**settings)


def as_json_input(result: Any) -> Any:
    """What a tool returned, as LRO reads it: text is text (not JSON source), models are dumped."""
    if isinstance(result, str):
        return json.dumps(result)
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return result


class LroTools:
    """Adds LRO to an ``MCPServer`` (or 1.x ``FastMCP``): the `lro_extract` tool and an
    offloading ``tool()`` decorator.

    ``config`` is an :class:`lro.Config` or a dict of its keyword arguments, used as given
    (a dict without ``guidance`` gets the native template: the model is told to use
    `lro_extract`). Without one, the configuration is the defaults with the native template
    and the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top, read when ``LroTools`` is
    created. ``on_event`` receives every event as a dict.
    """

    def __init__(
        self,
        server: Any,
        config: Union[Config, Mapping[str, Any], None] = None,
        *,
        on_event: Optional[Callable[[Dict[str, Any]], object]] = None,
        extract_tool_name: str = "lro_extract",
    ) -> None:
        self.server = server
        self.offloader = Offloader(_native_config(config), on_event=on_event)
        self.extract_tool_name = extract_tool_name
        server.add_tool(self._extract_tool(), name=extract_tool_name, description=EXTRACT_TOOL_DESCRIPTION)

    def _extract_tool(self) -> Callable[..., Any]:
        from mcp.types import CallToolResult

        from ._tool import extract_tool_function

        offloader = self.offloader

        def answer(file_path: str, request: Dict[str, Any]) -> Any:
            try:
                response = offloader.extract(file_path, request=request)
            except LroError as err:
                # The code first: the model (and a person reading logs) can act on it.
                raise _tool_error(f"{err.code}: {err}") from err
            return _call_tool_result(response)

        lro_extract = extract_tool_function(answer)
        # A CallToolResult return: the SDK passes it through (structuredContent is the
        # extraction response itself, not wrapped in {"result": ...}).
        lro_extract.__annotations__["return"] = CallToolResult
        return lro_extract

    def offload_result(self, result: Any, operation: str, arguments: Mapping[str, Any]) -> Any:
        """The tool's return value, or a ``CallToolResult`` holding the descriptor."""
        detail = arguments.get("detail")
        query = arguments.get("query")
        try:
            response = self.offloader.offload(
                as_json_input(result),
                operation,
                detail if isinstance(detail, str) else None,
                query if isinstance(query, str) else None,
            )
        except InputError:
            return result
        if not response["offloaded"]:
            return result
        return _call_tool_result(response)

    def offload(self, operation: Optional[str] = None) -> Callable[[F], F]:
        """Wraps a tool function so that its large results are offloaded.

        ``operation`` names the files and the summary; by default it comes from the
        function's name (``recall_memories`` -> ``recall``). Register the wrapped function
        with ``server.tool()`` / ``add_tool()``, or use :meth:`tool`, which does both.
        """

        def decorate(fn: F) -> F:
            op = operation or operation_for_tool(fn.__name__)
            # Evaluated against the tool's own module, so string annotations resolve there.
            signature = inspect.signature(fn, eval_str=True)

            def arguments(args: Any, kwargs: Any) -> Mapping[str, Any]:
                try:
                    return signature.bind_partial(*args, **kwargs).arguments
                except TypeError:
                    return kwargs  # type: ignore[no-any-return]

            if inspect.iscoroutinefunction(fn):

                @functools.wraps(fn)
                async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                    return self.offload_result(await fn(*args, **kwargs), op, arguments(args, kwargs))

                wrapper: Any = async_wrapper
            else:

                @functools.wraps(fn)
                def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                    return self.offload_result(fn(*args, **kwargs), op, arguments(args, kwargs))

                wrapper = sync_wrapper
            # No return annotation: the SDK then publishes no outputSchema (see the module docs).
            wrapper.__signature__ = signature.replace(return_annotation=inspect.Signature.empty)
            wrapper.__annotations__ = {k: v for k, v in getattr(fn, "__annotations__", {}).items() if k != "return"}
            return wrapper  # type: ignore[no-any-return]

        return decorate

    def tool(self, name: Optional[str] = None, *, operation: Optional[str] = None, **tool_options: Any) -> Callable[[F], F]:
        """``server.tool(name, **tool_options)`` for a function wrapped by :meth:`offload`."""

        def decorate(fn: F) -> F:
            op = operation or operation_for_tool(name or fn.__name__)
            self.server.tool(name, **tool_options)(self.offload(op)(fn))
            return fn

        return decorate
