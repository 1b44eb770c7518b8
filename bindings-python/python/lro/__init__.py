"""LRO: Large Result Offloading for Python agents and MCP servers.

A tool result above a token threshold (1,600 by default) is written to a JSONL file (a
header line, then one record per line) and replaced by a compact descriptor: a summary,
the file path, a JSON Schema of the lines, ten ready-to-run jq recipes and guidance. The
agent then reads only what it needs, with ``jq`` or with :func:`extract`.

All of the work happens in the Rust core (``lro-core``), so files and descriptors are
byte-identical to every other LRO build::

    import lro

    memories = [{"id": f"m{i}", "memory_type": "semantic", "namespace": "_semantic/decisions",
                 "title": f"Decision {i} about caching"} for i in range(500)]
    response = lro.offload(memories, operation="recall")
    assert response["offloaded"]
    titles = lro.extract(response["file_path"], recipe=1)["results"]

Configuration: every function takes ``config=``, a :class:`Config` or a dict of its keyword
arguments, used exactly as given. Without one (``config=None``), a call uses the defaults with
the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top, read at that call, as ``lro offload``
does: ``ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR=/var/lro`` moves the files of ``lro.offload(...)``.
``Config(...).with_env()`` layers the environment over explicit values.

Errors are :class:`LroError` subclasses whose ``.code`` is the core's stable error code.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Union

from ._errors import (
    CODE_CLASSES,
    ConfigError,
    ExtractionError,
    InputError,
    LroError,
    PathError,
    StorageError,
)
from ._lro import (
    DEFAULT_THRESHOLD_TOKENS,
    DEFAULT_TTL_SECONDS,
    ERROR_CODES,
    EXTRACT_QUERY_PARAMETERS,
    EXTRACT_TOOL_DESCRIPTION,
    EXTRACT_TOOL_INPUT_SCHEMA,
    RESOURCE_MIME_TYPE,
    RESOURCE_TEMPLATES,
    RESOURCE_URI_PREFIX,
    Config,
    Offloader,
    __version__,
    config_keys,
    error_for_code,
    estimate_tokens,
    extract_tool_definition,
    extract_tool_for_server,
    operation_for_tool,
    resource_error_code,
    resource_link,
)

__all__ = [
    "Config",
    "config_keys",
    "Offloader",
    "offload",
    "offload_inject",
    "extract",
    "cleanup",
    "intercept_tool_result",
    "list_resources",
    "read_resource",
    "resource_link",
    "resource_error_code",
    "RESOURCE_TEMPLATES",
    "RESOURCE_URI_PREFIX",
    "RESOURCE_MIME_TYPE",
    "operation_for_tool",
    "extract_tool_for_server",
    "extract_tool_definition",
    "estimate_tokens",
    "error_for_code",
    "LroError",
    "ConfigError",
    "InputError",
    "PathError",
    "ExtractionError",
    "StorageError",
    "CODE_CLASSES",
    "ERROR_CODES",
    "EXTRACT_TOOL_DESCRIPTION",
    "EXTRACT_QUERY_PARAMETERS",
    "EXTRACT_TOOL_INPUT_SCHEMA",
    "DEFAULT_THRESHOLD_TOKENS",
    "DEFAULT_TTL_SECONDS",
    "__version__",
]

#: What ``config=`` accepts everywhere: a :class:`Config` or a dict of its keyword arguments (used
#: as given), or None: the defaults with the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top.
ConfigLike = Union[Config, Mapping[str, Any], None]
#: An event callback: receives each event as a dict, e.g. ``{"event": "OffloadCreated", ...}``.
EventCallback = Callable[[Dict[str, Any]], object]


def _offloader(config: ConfigLike, on_event: Optional[EventCallback]) -> Offloader:
    # dict(...) so any Mapping works, not only dict.
    if isinstance(config, Mapping) and not isinstance(config, dict):
        config = dict(config)
    return Offloader(config, on_event=on_event)


def offload(
    records: Any,
    operation: str = "recall",
    detail: Optional[str] = None,
    query: Optional[str] = None,
    scores: Optional[Iterable[float]] = None,
    config: ConfigLike = None,
    *,
    next_cursor: Optional[str] = None,
    descriptor: Optional[str] = None,
    context_remaining_tokens: Optional[int] = None,
    mode: Optional[str] = None,
    threshold: Optional[int] = None,
    on_event: Optional[EventCallback] = None,
    request: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """Offload ``records`` when their estimated tokens exceed the threshold.

    ``records`` is a list of records (MIF memories or any JSON objects), an object holding
    a large array, or text; or the same already serialized as JSON ``str``/``bytes`` (the
    fast path, parsed in Rust). To offload plain text, pass ``json.dumps(text)``.

    Returns the ``OffloadResponse`` (``{"offloaded": True, "file_path": ..., "summary":
    ..., "line_schema": ..., "jq_recipes": [...10], "guidance": ...}``) or the inline result
    (``{"offloaded": False, "results": ..., "count": ..., "estimated_tokens": ...}``).
    ``detail`` (``light``/``medium``/``full``) defaults to the operation's default;
    ``scores`` feed ``summary.score_range``; a ``next_cursor`` is kept only inline.

    ``descriptor`` chooses this call's descriptor profile over the configured one:
    ``"full"`` (above), ``"compact"`` (summary, path, one line per recipe, one paragraph of
    guidance) or ``"pointer"`` (``{"offloaded", "file_path", "resource_uri", "count", "guidance"}``);
    ``extract(file_path, describe=True)`` gives the full descriptor later.
    ``context_remaining_tokens`` (the tokens left in the caller's context window) lowers the
    threshold to ``adaptive_ratio`` (0.10 by default) of it when that is less; the outcome
    then reports the threshold it applied as ``threshold_tokens``. ``mode`` decides for this
    call alone: ``"never"`` keeps the result inline whatever its size, ``"always"`` offloads
    it however small (so that a ``{"$lro": uri}`` handle can pass it on), ``"auto"`` past the
    threshold; ``threshold`` replaces ``threshold_tokens`` for this call.

    ``request`` takes the whole ``OffloadRequest`` as JSON instead (what a proxy receives);
    the other request arguments are then ignored.
    """
    offloader = _offloader(config, on_event)
    if request is not None:
        return offloader.offload(records, request=_plain(request))
    return offloader.offload(
        records,
        operation,
        detail,
        query,
        None if scores is None else list(scores),
        next_cursor=next_cursor,
        descriptor=descriptor,
        context_remaining_tokens=context_remaining_tokens,
        mode=mode,
        threshold=threshold,
    )


def offload_inject(
    formatted: str,
    pre_budget: Any,
    operation: str = "inject",
    detail: Optional[str] = None,
    query: Optional[str] = None,
    scores: Optional[Iterable[float]] = None,
    config: ConfigLike = None,
    *,
    next_cursor: Optional[str] = None,
    descriptor: Optional[str] = None,
    context_remaining_tokens: Optional[int] = None,
    mode: Optional[str] = None,
    threshold: Optional[int] = None,
    on_event: Optional[EventCallback] = None,
) -> Dict[str, Any]:
    """The ``inject_context`` rule: the pre-budget result set decides.

    Above the threshold the full ``pre_budget`` set is offloaded and ``formatted`` (the
    budgeted prompt text) is discarded; otherwise ``formatted`` is returned inline.
    ``descriptor``, ``context_remaining_tokens``, ``mode`` and ``threshold`` as for
    :func:`offload`.
    """
    return _offloader(config, on_event).offload_inject(
        formatted,
        pre_budget,
        operation,
        detail,
        query,
        None if scores is None else list(scores),
        next_cursor=next_cursor,
        descriptor=descriptor,
        context_remaining_tokens=context_remaining_tokens,
        mode=mode,
        threshold=threshold,
    )


def extract(
    file_path: Union[str, "os.PathLike[str]"],
    recipe: Optional[int] = None,
    query: Optional[str] = None,
    params: Optional[Mapping[str, Any]] = None,
    config: ConfigLike = None,
    *,
    lines: Optional[Mapping[str, Any]] = None,
    search: Optional[Mapping[str, Any]] = None,
    section: Optional[str] = None,
    where: Union[Mapping[str, Any], str, None] = None,
    fields: Union[Sequence[str], Mapping[str, int], str, None] = None,
    sort: Union[Mapping[str, int], Sequence[str], str, None] = None,
    skip: Optional[int] = None,
    limit: Optional[int] = None,
    count: Optional[bool] = None,
    group_by: Optional[str] = None,
    distinct: Optional[str] = None,
    stats: Optional[str] = None,
    describe: Optional[bool] = None,
) -> Dict[str, Any]:
    """Read part of an offloaded file: one of ``recipe``, ``query``, ``lines``, ``search``, a
    structured query (``where`` and the arguments after it), or ``describe=True``.

    ``recipe`` is a recipe number (1-10) from the descriptor, parameterised by ``params``
    (``{"namespace": "_semantic"}``); ``query`` is any jq filter run per record by the
    embedded engine, with ``params`` bound as ``$name``. ``where`` is a MongoDB filter
    document (``{"tags": "cache", "provenance.confidence": {"$gte": 0.8}}``), shaped by
    ``fields`` (``["id", "title"]``), ``sort`` (``{"created": -1}``), ``skip`` and ``limit``,
    or summarized by one of ``count=True``, ``group_by``, ``distinct``, ``stats`` (a field
    name); those work without ``where`` too (every record). A file with ``sections`` (one
    per array of an object result, see the descriptor) is read one section at a time with
    ``section``. ``describe=True`` returns the file's full descriptor (summary, line schema,
    the ten recipes with their commands, guidance) as the one result, rebuilt from the file:
    what a ``compact`` or ``pointer`` descriptor left out. The file must be an offload file
    inside the configured output directory.
    Returns ``{"results": [...], "count": N,
    "truncated": bool, ...}``; a structured query's response also has ``"jq"`` (the
    equivalent shell command) and ``"warnings"`` (a field no record has, with the closest
    names).
    """
    structured = {
        "where": where,
        "fields": fields,
        "sort": sort,
        "skip": skip,
        "limit": limit,
        "count": count,
        "group_by": group_by,
        "distinct": distinct,
        "stats": stats,
    }
    return _offloader(config, None).extract(
        file_path,
        recipe,
        query,
        _plain(params),
        lines=_plain(lines),
        search=_plain(search),
        section=section,
        describe=describe,
        **{k: _plain(v) for k, v in structured.items() if v is not None},
    )


def _plain(value: Any) -> Any:
    """A mapping as a dict and a sequence (not a string) as a list, as the core reads them.
    Anything else goes as it is, so that a value of the wrong type (``lines="0:2"``) is
    refused by the core, as an ``LroError`` with its code, rather than by ``dict()``."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value


def cleanup(config: ConfigLike = None, *, on_event: Optional[EventCallback] = None) -> Dict[str, Any]:
    """Delete offload files whose time-to-live has passed; returns ``{"removed", "kept", "errors"}``."""
    return _offloader(config, on_event).cleanup()


def intercept_tool_result(
    result: Mapping[str, Any],
    tool_name: str = "",
    *,
    arguments: Optional[Mapping[str, Any]] = None,
    client_is_proxy: bool = False,
    output_schema_declared: bool = False,
    config: ConfigLike = None,
    on_event: Optional[EventCallback] = None,
    context: Optional[Mapping[str, Any]] = None,
    extract_tool: Optional[str] = None,
    rule: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """Apply LRO to a serialized MCP ``CallToolResult`` (a dict in wire form).

    Returns ``{"result": CallToolResult, "action": "offloaded" | "inline" | "bypassed" |
    "truncated", "response": descriptor (when offloaded)}``. ``detail`` and ``query`` are
    read from ``arguments``; a proxy client or a declared ``outputSchema`` bypasses LRO.
    ``context`` takes the whole ``ToolCallContext`` as JSON instead of the keyword arguments.
    An offloaded result is one text block, the descriptor (``mcp.structured_content`` and
    ``mcp.resource_link`` add ``structuredContent`` and a ``resource_link``); ``extract_tool``
    is the extract tool's name as the server lists it, which the descriptor names. The
    configuration's rules (``tools``: ``{"fs_*": {"mode": "never"}}``) apply to ``tool_name``
    by its most specific pattern; ``rule`` is this call's own, in place of it.
    """
    offloader = _offloader(config, on_event)
    if context is not None:
        return offloader.intercept_tool_result(_plain(result), context=_plain(context))
    return offloader.intercept_tool_result(
        _plain(result),
        tool_name,
        arguments=_plain(arguments),
        client_is_proxy=client_is_proxy,
        output_schema_declared=output_schema_declared,
        extract_tool=extract_tool,
        rule=_plain(rule),
    )


def list_resources(cursor: Optional[str] = None, config: ConfigLike = None) -> Dict[str, Any]:
    """One page of the offload files as MCP resources, newest first.

    Every offload file of the output directory is the resource ``lro://offloads/{file}``
    (and ``.../records`` is the same file without its header line), for MCP clients that
    cannot open ``file_path``. Returns ``{"resources": [{"uri", "name", "title",
    "description", "mimeType", "size"}], "nextCursor": ...}`` (no ``nextCursor`` on the last
    page); pass ``nextCursor`` back as ``cursor`` for the next page. Expired files are left
    out even before cleanup removes them.
    """
    return _offloader(config, None).list_resources(cursor)


def read_resource(uri: str, config: ConfigLike = None) -> Dict[str, Any]:
    """Read an offload resource: ``{"contents": [{"uri", "mimeType", "text"}]}``.

    Only offload files of the output directory are served: a URI outside
    ``lro://offloads/`` raises :class:`ExtractionError` (``invalid_argument``); a ``..``, a
    name that is no offload file's or a symbolic link :class:`PathError` (``path_denied``);
    a missing or expired file :class:`PathError` (``not_found``).
    :func:`resource_error_code` gives the JSON-RPC code to answer with.
    """
    return _offloader(config, None).read_resource(uri)
