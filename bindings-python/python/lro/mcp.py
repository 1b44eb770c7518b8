"""LRO for tools of the official MCP Python SDK (``mcp``).

The SDK's high-level server is ``mcp.server.mcpserver.MCPServer`` in ``mcp`` 2.x (it was
``mcp.server.fastmcp.FastMCP`` in 1.x; both have the same ``tool()`` / ``add_tool()``, and
both work here)::

    from mcp.server.mcpserver import MCPServer
    from lro.mcp import LroTools

    server = MCPServer("memories")
    lro_tools = LroTools(server)            # registers the `lro_extract_memories` tool

    @lro_tools.tool()                        # = @server.tool(), plus offloading
    def recall_memories(query: str, detail: str = "light") -> list[dict]:
        return store.recall(query)

A result above the threshold is written to JSONL and the tool returns the descriptor as one
JSON text block (its ``resource_uri`` names the file as an MCP resource); the configuration's
``mcp`` options add ``structuredContent`` (``structured_content``) and a ``resource_link``
block (``resource_link``). Smaller results go back untouched. ``detail`` and ``query``
arguments of the tool, when it has them, become the request's. Descriptors carry the native
guidance, which points the model at the extract tool by the name it is registered under:
``lro_extract_<server name>`` (``extract_tool_name=``, or the configuration's
``mcp.extract_tool_name``, chooses another), so that two servers in one agent offer two
tools.

Every offload file is also an MCP resource, ``lro://offloads/{file}`` (``.../records``
without the header line), for clients that cannot open ``file_path``: ``resources/list``
pages them (newest first) before the server's own resources, ``resources/read`` serves them
(and passes any other URI to the server), ``resources/templates/list`` names both forms, and
a client that listed resources hears ``notifications/resources/list_changed`` after each
offload and after :meth:`LroTools.cleanup` removed files (on a 2026-07-28 connection, through
the SDK's ``subscriptions/listen``). ``lro_extract`` takes the URI for ``file_path``.

A tool argument given as a result handle, ``{"$lro": resource_uri, ...}`` with the extract
tool's keys and ``as`` (``json``, ``jsonl``, ``text``), is replaced by the data it names
before the SDK validates the arguments and the tool runs, for every tool of the server but
the extract tool (:meth:`lro.Offloader.resolve_tool_call`); a handle that cannot be resolved
is answered as an ``isError`` result naming the argument, and the tool is not called.
``lro_extract`` with ``save: true`` keeps its output as a new offload file whose descriptor's
``resource_uri`` is such a handle.

An offloading tool does not publish an ``outputSchema``: the descriptor would not match it
(the same choice the ``lro proxy`` makes); tools ``mcp.never_offload`` names are left as
they are. Offloading never fails a tool: a result LRO cannot read as JSON is returned as it
is.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, TypeVar, Union

from . import (
    EXTRACT_TOOL_DESCRIPTION,
    Config,
    InputError,
    LroError,
    Offloader,
    extract_tool_definition,
    extract_tool_for_server,
    operation_for_tool,
)
from ._handles import resolve_handles
from ._resources import OffloadResources, is_offload_block, is_offload_uri

__all__ = ["LroTools", "EXTRACT_TOOL_DESCRIPTION"]

F = TypeVar("F", bound=Callable[..., Any])

#: Resolves the handles of one call (tool name, arguments): ``None``, or the core's answer.
Handles = Callable[[str, Optional[Mapping[str, Any]]], Awaitable[Optional[Dict[str, Any]]]]


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
    content: List[Any] = [TextContent(type="text", text=text)]
    # By the wire name: the field is `structured_content` in mcp 2.x, `structuredContent` in 1.x.
    return CallToolResult.model_validate({"content": content, "structuredContent": payload})


def extract_tool_name_for(server: Any, config: Config, given: Optional[str]) -> str:
    """The extract tool's name: ``given``, else the configuration's
    ``mcp.extract_tool_name``, else ``lro_extract_<server name>`` (``lro_extract`` for a
    server without a name)."""
    if given is not None:
        return given
    configured = config.mcp.get("extract_tool_name")
    if configured:
        return str(configured)
    name = getattr(server, "name", None)
    return extract_tool_for_server(name if isinstance(name, str) else None)


def configured_extract_tool(config: Config) -> Dict[str, Any]:
    """The extract tool's definition in the form ``config.mcp["extract_tool_definition"]``
    names (short by default): ``{"description", "inputSchema"}``."""
    return extract_tool_definition(str(config.mcp.get("extract_tool_definition") or "short"))


def _publish_exactly(server: Any, name: str, input_schema: Dict[str, Any]) -> None:
    """Lists the tool ``name`` with ``input_schema``, the configured form as the core gives
    it. The SDK derives the schema it lists from the function's signature, which has every
    argument (so that none a client sends is dropped), each with a title and ``"default":
    null`` (110 tokens more on the short definition, sent with every request); it validates
    calls with its argument model, not with this schema. A server without the SDK's tool
    manager keeps what it derived."""
    manager = getattr(server, "_tool_manager", None)
    tool = manager.get_tool(name) if manager is not None and hasattr(manager, "get_tool") else None
    if tool is not None and isinstance(getattr(tool, "parameters", None), dict):
        tool.parameters = dict(input_schema)


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
    """Adds LRO to an ``MCPServer`` (or 1.x ``FastMCP``): the extract tool
    (``lro_extract_<server name>`` unless ``extract_tool_name`` names it) and an offloading
    ``tool()`` decorator.

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
        extract_tool_name: Optional[str] = None,
    ) -> None:
        self.server = server
        resolved = _native_config(config)
        #: The extract tool's name, as registered and as descriptors name it.
        self.extract_tool_name = extract_tool_name_for(server, resolved, extract_tool_name)
        # In the configuration too, so that `describe=true` rebuilds descriptors naming it.
        resolved = resolved.replace(mcp={**resolved.mcp, "extract_tool_name": self.extract_tool_name})
        self.offloader = Offloader(resolved, on_event=on_event)
        #: The offload files as MCP resources (see the module's docs).
        self.resources = OffloadResources(self.offloader)
        definition = configured_extract_tool(self.offloader.config)
        server.add_tool(self._extract_tool(), name=self.extract_tool_name, description=definition["description"])
        _publish_exactly(server, self.extract_tool_name, definition["inputSchema"])
        _serve_resources(server, self.resources, self._resolve_handles)

    async def _resolve_handles(self, name: str, arguments: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
        # The extract tool reads offload files itself; as in the `lro proxy`, its arguments
        # are never taken for handles.
        if name == self.extract_tool_name:
            return None
        return await resolve_handles(self.offloader, arguments)

    async def cleanup(self) -> Dict[str, Any]:
        """Removes expired offload files (off the event loop) and, when some were removed,
        tells the clients that listed resources; returns the cleanup report. Call it from
        your scheduler, or a task in the server's lifespan."""
        return await self.resources.cleanup()

    def _extract_tool(self) -> Callable[..., Any]:
        from mcp.types import CallToolResult

        from ._tool import extract_tool_function

        offloader = self.offloader

        def answer(arguments: Dict[str, Any]) -> Any:
            # The core answers (the answer alone, bounded; errors as isError results naming
            # their code), as the `lro proxy` and the Node helper answer.
            return CallToolResult.model_validate(offloader.extract_tool_call(arguments))

        lro_extract = extract_tool_function(answer)
        # A CallToolResult return: the SDK passes it through as it is.
        lro_extract.__annotations__["return"] = CallToolResult
        return lro_extract

    def offload_result(
        self, result: Any, operation: str, arguments: Mapping[str, Any], tool_name: Optional[str] = None
    ) -> Any:
        """The tool's return value, or a ``CallToolResult`` holding the descriptor (shaped by
        the core's MCP interceptor, as every LRO surface shapes it). The configuration's
        per-tool rules (:attr:`lro.Config.tools`) match ``tool_name`` (the name the tool is
        listed by; ``operation`` when not given); a rule's ``operation`` beats ``operation``."""
        data = result if isinstance(result, str) else as_json_input(result)
        context = {
            "tool_name": tool_name or operation,
            "operation": operation,
            "arguments": {k: v for k, v in arguments.items() if k in ("detail", "query") and isinstance(v, str)},
            "extract_tool": self.extract_tool_name,
        }
        try:
            intercepted = self.offloader.intercept_tool_result(
                {"content": [], "structuredContent": data}, context=context
            )
        except (InputError, LroError):
            return result
        if intercepted["action"] not in ("offloaded", "truncated"):
            return result
        from mcp.types import CallToolResult

        return CallToolResult.model_validate(intercepted["result"])

    def offload(self, operation: Optional[str] = None, *, tool_name: Optional[str] = None) -> Callable[[F], F]:
        """Wraps a tool function so that its large results are offloaded.

        ``operation`` names the files and the summary; by default it comes from the
        function's name (``recall_memories`` -> ``recall``). ``tool_name`` is the name the
        tool is listed by (by default the function's), which per-tool rules match. Register
        the wrapped function with ``server.tool()`` / ``add_tool()``, or use :meth:`tool`,
        which does both.
        """

        def decorate(fn: F) -> F:
            name = tool_name or fn.__name__
            op = operation or operation_for_tool(name)
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
                    return self.offload_result(await fn(*args, **kwargs), op, arguments(args, kwargs), name)

                wrapper: Any = async_wrapper
            else:

                @functools.wraps(fn)
                def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                    return self.offload_result(fn(*args, **kwargs), op, arguments(args, kwargs), name)

                wrapper = sync_wrapper
            # No return annotation: the SDK then publishes no outputSchema (see the module docs).
            wrapper.__signature__ = signature.replace(return_annotation=inspect.Signature.empty)
            wrapper.__annotations__ = {k: v for k, v in getattr(fn, "__annotations__", {}).items() if k != "return"}
            return wrapper  # type: ignore[no-any-return]

        return decorate

    def tool(self, name: Optional[str] = None, *, operation: Optional[str] = None, **tool_options: Any) -> Callable[[F], F]:
        """``server.tool(name, **tool_options)`` for a function wrapped by :meth:`offload`;
        a tool the configuration never offloads (``mcp.never_offload`` names it, or a
        ``mode = "never"`` rule matches it) is registered as it is (it keeps its
        ``outputSchema``, its results pass untouched)."""

        def decorate(fn: F) -> F:
            if self.offloader.config.never_offloads(name or fn.__name__):
                self.server.tool(name, **tool_options)(fn)
                return fn
            op = operation or operation_for_tool(name or fn.__name__)
            self.server.tool(name, **tool_options)(self.offload(op, tool_name=name or fn.__name__)(fn))
            return fn

        return decorate


def _serve_resources(server: Any, resources: OffloadResources, handles: Handles) -> None:
    """Installs the resource handlers on the server's low-level SDK server, around its own,
    and resolves result handles in ``tools/call`` before the SDK validates the arguments
    (a handle is an object where the tool may take a string)."""
    low = getattr(server, "_lowlevel_server", None)
    if low is not None and hasattr(low, "add_request_handler"):
        _serve_resources_v2(server, low, resources, handles)
    elif hasattr(getattr(server, "_mcp_server", None), "request_handlers"):
        _serve_resources_v1(server._mcp_server, resources, handles)
    else:
        raise TypeError(f"lro.mcp.LroTools: {type(server).__name__} is neither mcp 2.x MCPServer nor mcp 1.x FastMCP")
    _announce_list_changes(low if low is not None else server._mcp_server)


def _announce_list_changes(low: Any) -> None:
    """Makes the server's `initialize` answer declare ``resources.listChanged``."""
    from mcp.server.lowlevel import NotificationOptions

    original = low.create_initialization_options

    def create_initialization_options(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
        options = notification_options if notification_options is not None else NotificationOptions()
        options.resources_changed = True
        return original(options, *args, **kwargs)

    low.create_initialization_options = create_initialization_options


def _dump(models: Any) -> List[Dict[str, Any]]:
    return [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in models]


def _serve_resources_v2(server: Any, low: Any, resources: OffloadResources, handles: Handles) -> None:
    """mcp 2.x: handlers take ``(ctx, params)`` and return result models."""
    from mcp.types import (
        CallToolRequestParams,
        CallToolResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        PaginatedRequestParams,
        ReadResourceRequestParams,
        ReadResourceResult,
    )

    own = {m: low.get_request_handler(m) for m in ("resources/list", "resources/templates/list", "resources/read", "tools/call")}

    async def list_resources(ctx: Any, params: Any) -> Any:
        resources.listening(ctx.session)
        cursor = getattr(params, "cursor", None)
        page = await resources.page(cursor)
        listed = list(page["resources"])
        if cursor is None and own["resources/list"] is not None:
            # The server's own resources (MCPServer lists them all at once) join the first page.
            listed += _dump((await own["resources/list"].handler(ctx, params)).resources)
        return ListResourcesResult.model_validate({"resources": listed, "nextCursor": page.get("nextCursor")})

    async def list_templates(ctx: Any, params: Any) -> Any:
        templates = resources.templates()
        if own["resources/templates/list"] is not None:
            templates += _dump((await own["resources/templates/list"].handler(ctx, params)).resource_templates)
        return ListResourceTemplatesResult.model_validate({"resourceTemplates": templates})

    async def read_resource(ctx: Any, params: Any) -> Any:
        if is_offload_uri(params.uri) or own["resources/read"] is None:
            return ReadResourceResult.model_validate(await resources.read(str(params.uri)))
        return await own["resources/read"].handler(ctx, params)

    async def call_tool(ctx: Any, params: Any) -> Any:
        resolved = await handles(params.name, params.arguments)
        if resolved is not None and "result" in resolved:
            # A handle that cannot be resolved: the tool is not called.
            return CallToolResult.model_validate(resolved["result"])
        if resolved is not None:
            params = params.model_copy(update={"arguments": resolved["arguments"]})
        result = await own["tools/call"].handler(ctx, params)
        if any(is_offload_block(block) for block in getattr(result, "content", None) or ()):
            await resources.changed()
        return result

    low.add_request_handler("resources/list", PaginatedRequestParams, list_resources)
    low.add_request_handler("resources/templates/list", PaginatedRequestParams, list_templates)
    low.add_request_handler("resources/read", ReadResourceRequestParams, read_resource)
    if own["tools/call"] is not None:
        low.add_request_handler("tools/call", CallToolRequestParams, call_tool)
    # On 2026-07-28 connections change notifications travel on `subscriptions/listen`
    # streams, which the server's bus feeds.
    bus = getattr(server, "_subscriptions", None)
    if bus is not None:
        from mcp.shared.subscriptions import ResourcesListChanged

        resources.publish_with(lambda: bus.publish(ResourcesListChanged()))


def _serve_resources_v1(low: Any, resources: OffloadResources, handles: Handles) -> None:
    """mcp 1.x: handlers take the request and return a ``ServerResult``."""
    # Typed as Any: the type checker sees mcp 2.x, whose types module has other shapes.
    types: Any = importlib.import_module("mcp.types")

    own = {kind: low.request_handlers.get(kind) for kind in (
        types.ListResourcesRequest, types.ListResourceTemplatesRequest, types.ReadResourceRequest, types.CallToolRequest)}

    async def list_resources(req: Any) -> Any:
        resources.listening(low.request_context.session)
        cursor = req.params.cursor if req.params is not None else None
        page = await resources.page(cursor)
        listed = list(page["resources"])
        if cursor is None and own[types.ListResourcesRequest] is not None:
            listed += _dump((await own[types.ListResourcesRequest](req)).root.resources)
        return types.ServerResult(types.ListResourcesResult.model_validate({"resources": listed, "nextCursor": page.get("nextCursor")}))

    async def list_templates(req: Any) -> Any:
        templates = resources.templates()
        if own[types.ListResourceTemplatesRequest] is not None:
            templates += _dump((await own[types.ListResourceTemplatesRequest](req)).root.resourceTemplates)
        return types.ServerResult(types.ListResourceTemplatesResult.model_validate({"resourceTemplates": templates}))

    async def read_resource(req: Any) -> Any:
        if is_offload_uri(req.params.uri) or own[types.ReadResourceRequest] is None:
            return types.ServerResult(types.ReadResourceResult.model_validate(await resources.read(str(req.params.uri))))
        return await own[types.ReadResourceRequest](req)

    async def call_tool(req: Any) -> Any:
        resolved = await handles(req.params.name, req.params.arguments)
        if resolved is not None and "result" in resolved:
            return types.ServerResult(types.CallToolResult.model_validate(resolved["result"]))
        if resolved is not None:
            params = req.params.model_copy(update={"arguments": resolved["arguments"]})
            req = req.model_copy(update={"params": params})
        result = await own[types.CallToolRequest](req)
        if any(is_offload_block(block) for block in getattr(result.root, "content", None) or ()):
            await resources.changed()
        return result

    low.request_handlers[types.ListResourcesRequest] = list_resources
    low.request_handlers[types.ListResourceTemplatesRequest] = list_templates
    low.request_handlers[types.ReadResourceRequest] = read_resource
    if own[types.CallToolRequest] is not None:
        low.request_handlers[types.CallToolRequest] = call_tool
