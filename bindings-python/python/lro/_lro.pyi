"""Type stubs of the ``lro._lro`` extension module (Rust, pyo3). Checked by ``mypy.stubtest``."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union, final

__all__ = [
    "Config",
    "config_keys",
    "Offloader",
    "operation_for_tool",
    "extract_tool_for_server",
    "extract_tool_definition",
    "estimate_tokens",
    "error_for_code",
    "__version__",
    "ERROR_CODES",
    "DEFAULT_THRESHOLD_TOKENS",
    "DEFAULT_TTL_SECONDS",
    "EXTRACT_TOOL_DESCRIPTION",
    "EXTRACT_QUERY_PARAMETERS",
    "EXTRACT_TOOL_INPUT_SCHEMA",
    "RESOURCE_URI_PREFIX",
    "RESOURCE_MIME_TYPE",
    "RESOURCE_TEMPLATES",
    "resource_link",
    "resource_error_code",
]

#: The package version (the same for every LRO package).
__version__: str
#: Every stable error code of the core, e.g. ``"invalid_config"``; each is a key of ``CODE_CLASSES``.
ERROR_CODES: Tuple[str, ...]
#: The default ``threshold_tokens`` (1,600).
DEFAULT_THRESHOLD_TOKENS: int
#: The default ``ttl_seconds`` (3,600).
DEFAULT_TTL_SECONDS: int
#: The description of the ``lro_extract`` MCP tool, as every LRO surface gives it by default
#: (the short form; :func:`extract_tool_definition` gives either).
EXTRACT_TOOL_DESCRIPTION: str
#: The description of each structured-query argument of ``lro_extract``, by name (the long
#: form's; the short form lists no argument descriptions).
EXTRACT_QUERY_PARAMETERS: Dict[str, str]
#: The JSON Schema of ``lro_extract``'s arguments in the default (short) form.
EXTRACT_TOOL_INPUT_SCHEMA: Dict[str, Any]
#: ``"lro://offloads/"``: the URI of an offload file as an MCP resource is this plus its name.
RESOURCE_URI_PREFIX: str
#: The MIME type of offload resources (JSON lines).
RESOURCE_MIME_TYPE: str
#: The ``resources/templates/list`` entries: the file as written, and its records alone.
RESOURCE_TEMPLATES: List[Dict[str, Any]]

_ConfigArg = Union["Config", Mapping[str, Any], None]

@final
class Config:
    """LRO configuration (``[prompt.offload]`` plus extraction limits); immutable.

    A ``Config`` is used exactly as built; the ``ATLATL_PROMPT__OFFLOAD__*`` environment counts
    only through :meth:`from_env` (what a call given no configuration uses) and :meth:`with_env`.
    """

    def __new__(
        cls,
        *,
        # keywords: written from lro.config_keys() by tests/test_config_keys.py
        enabled: Optional[bool] = None,
        threshold_tokens: Optional[int] = None,
        estimator: Optional[str] = None,
        ttl_seconds: Optional[int] = None,
        output_dir: Union[str, "os.PathLike[str]", None] = None,
        allow_shared_dir: Optional[bool] = None,
        file_prefix: Optional[str] = None,
        guidance: Optional[str] = None,
        descriptor: Optional[str] = None,
        adaptive_ratio: Optional[float] = None,
        preview_records: Optional[int] = None,
        extract: Optional[Mapping[str, int]] = None,
        store: Optional[Mapping[str, int]] = None,
        mcp: Optional[Mapping[str, Any]] = None,
        tools: Optional[Mapping[str, Mapping[str, Any]]] = None,
        # end of keywords
    ) -> "Config":
        """The defaults with the given keyword arguments applied (``None`` keeps a default).

        ``extract``, ``store`` and ``mcp`` take a dict of their section's keys
        (``extract={"timeout_ms": 500}``): :func:`config_keys` lists every key with its type,
        bounds and default, as docs/configuration.md does. ``tools`` takes per-tool rules by
        pattern, a glob on the tool's name (``{"fs_*": {"mode": "never"}, "search":
        {"threshold": 200}}``; keys ``mode``, ``threshold``, ``descriptor``, ``detail``,
        ``operation``): the most specific pattern that matches a tool applies.
        ``output_dir="s3://bucket/prefix"`` writes to an S3-compatible store. An output directory
        other users can write is refused (``invalid_config``, or the inline fallback when
        offloading) unless ``allow_shared_dir=True``. A value of the
        wrong type or out of range raises :class:`ConfigError` (``invalid_config``) naming the
        key and value.
        """
    @staticmethod
    def from_toml(source: Union[str, "os.PathLike[str]"]) -> "Config":
        """The ``[prompt.offload]`` section of a TOML file or TOML text, over the defaults.

        An ``os.PathLike`` is a file. A ``str`` is TOML text, unless it does not parse as TOML
        and names an existing file, which is then read. Bad TOML or values raise
        :class:`ConfigError` (``invalid_config``); a missing file :class:`PathError`
        (``not_found``), any other read failure :class:`StorageError` (``io_error``).
        """
    @staticmethod
    def from_env(environ: Optional[Mapping[str, str]] = None) -> "Config":
        """The defaults with the ``ATLATL_PROMPT__OFFLOAD__*`` variables of ``environ`` applied.

        ``None`` reads this process's environment (which ``os.environ`` assignments update):
        the configuration a call given none uses. An unknown key under the prefix or a bad
        value raises :class:`ConfigError` (``invalid_config``) naming the variable.
        """
    def with_env(self, environ: Optional[Mapping[str, str]] = None) -> "Config":
        """A copy with the environment (``environ``, or this process's when ``None``) applied
        over this configuration, e.g. ``Config.from_toml("lro.toml").with_env()``.

        Raises :class:`ConfigError` (``invalid_config``) as :meth:`from_env` does.
        """
    def replace(self, **changes: Any) -> "Config":
        """A copy with the given keyword arguments (those of :class:`Config`) changed.

        Raises :class:`ConfigError` (``invalid_config``) for a bad key or value.
        """
    def to_dict(self) -> Dict[str, Any]:
        """The configuration as a dict in the core's JSON form (every key, ``extract`` and
        ``store`` as nested dicts)."""
    @property
    def enabled(self) -> bool:
        """Whether offloading is on; when off, every result is returned inline."""
    @property
    def threshold_tokens(self) -> int:
        """Offload when a result's estimated tokens are strictly greater than this."""
    @property
    def ttl_seconds(self) -> int:
        """Seconds after which :meth:`Offloader.cleanup` may delete a file."""
    @property
    def output_dir(self) -> str:
        """Directory (or ``s3://`` URI) for offload files; empty means ``lro-<uid>`` in the system
        temporary directory, made private to the user (0700)."""
    @property
    def allow_shared_dir(self) -> bool:
        """Whether an output directory other users can write is used; refused when ``False``."""
    @property
    def file_prefix(self) -> str:
        """File name prefix: files are named ``{prefix}-{operation}-{ulid}.jsonl``."""
    @property
    def guidance(self) -> str:
        """Which guidance descriptors carry: ``"shell"`` (jq commands) or ``"native"`` (``lro_extract``)."""
    @property
    def descriptor(self) -> str:
        """The default descriptor profile: ``"full"``, ``"compact"`` or ``"pointer"``."""
    @property
    def adaptive_ratio(self) -> float:
        """With a call's ``context_remaining_tokens``, the threshold becomes
        ``min(threshold_tokens, adaptive_ratio * context_remaining_tokens)``."""
    @property
    def preview_records(self) -> int:
        """The full and compact descriptors show the file's first N records, as many as fit
        their budget (a ``note`` says how many when fewer); 0 shows none."""
    @property
    def extract(self) -> Dict[str, int]:
        """Limits on native extraction: ``max_read_bytes``, ``max_output_records``,
        ``max_output_bytes``, ``timeout_ms``, ``max_memory_bytes`` (estimated memory of a jq
        filter's values; past it, or past 1024 levels of nesting, ``resource_limit``),
        ``answer_max_tokens`` and ``answer_max_bytes`` (the bound on each answer of the
        extract tool through MCP: 4000 tokens, 16384 bytes)."""
    @property
    def store(self) -> Dict[str, int]:
        """Bounds on requests to an object store: ``timeout_ms``, ``retries``."""
    @property
    def mcp(self) -> Dict[str, Any]:
        """The MCP helpers' options: ``resource_link``, ``structured_content``,
        ``extract_tool_name``, ``never_offload``."""
    @property
    def tools(self) -> Dict[str, Dict[str, Any]]:
        """Per-tool rules by pattern: ``{"fs_*": {"mode": "never"}}``."""
    def never_offloads(self, tool_name: str) -> bool:
        """Whether results of ``tool_name`` pass untouched whatever their size:
        ``mcp.never_offload`` names it, or its most specific rule's ``mode`` is ``never``."""
    def __eq__(self, value: object, /) -> bool:
        """Equal when every setting is equal."""
    def __ne__(self, value: object, /) -> bool:
        """Not equal when any setting differs."""

@final
class Offloader:
    """The LRO engine: a configuration, the file system, and optional callbacks.

    Without ``config``, the defaults with the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top,
    read when the ``Offloader`` is created.
    """

    def __new__(
        cls,
        config: _ConfigArg = None,
        *,
        on_event: Optional[Callable[[Dict[str, Any]], object]] = None,
        estimator: Optional[Callable[[str], int]] = None,
    ) -> "Offloader":
        """An engine for many calls (it keeps the ULID generator; safe to share between threads).

        ``config`` is a :class:`Config` or a dict of its keyword arguments, used as given.
        ``on_event`` is called with each event as a dict (``{"event": "OffloadCreated", ...}``);
        ``estimator(text) -> int`` replaces the built-in token heuristic. An exception in
        either goes to ``sys.unraisablehook`` and never fails a call. A bad configuration
        raises :class:`ConfigError` (``invalid_config``).
        """
    @property
    def config(self) -> Config:
        """The configuration in use."""
    @property
    def output_dir(self) -> str:
        """The directory files are written to (``lro-<uid>`` in the system temporary directory,
        private to the user, when the configuration's ``output_dir`` is empty)."""
    def offload(
        self,
        records: Any,
        operation: Optional[str] = None,
        detail: Optional[str] = None,
        query: Optional[str] = None,
        scores: Optional[List[float]] = None,
        *,
        next_cursor: Optional[str] = None,
        descriptor: Optional[str] = None,
        context_remaining_tokens: Optional[int] = None,
        mode: Optional[str] = None,
        threshold: Optional[int] = None,
        request: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Offloads ``records`` when their estimated tokens exceed the threshold.

        ``records`` is any JSON-like object (``datetime`` values, dataclasses and pydantic
        models among them), or JSON text as ``str``/``bytes``/``bytearray`` (the fast path). Returns the descriptor (``{"offloaded": True, "file_path", ...}``, in
        the ``descriptor`` profile: ``"full"``, ``"compact"`` or ``"pointer"``) or the inline
        result (``{"offloaded": False, "results", "count", "estimated_tokens", ...}``; a failed
        write gives it cut to the threshold, with ``"truncated": True`` and a ``"warning"``).
        ``operation`` defaults to ``"recall"``; ``context_remaining_tokens`` lowers the
        threshold (see :attr:`Config.adaptive_ratio`). ``mode`` decides for this call alone:
        ``"never"`` returns the result inline whatever its size, ``"always"`` offloads it
        however small, ``"auto"`` past the threshold; ``threshold`` replaces
        ``threshold_tokens`` for this call. ``request`` takes the whole request as a dict
        instead of the other arguments.

        Raises :class:`InputError`: ``invalid_input`` (not JSON), ``invalid_detail``,
        ``invalid_operation``; :class:`ExtractionError` (``invalid_argument``): an unknown
        request field or profile, or ``request`` given with other arguments.
        """
    def offload_inject(
        self,
        formatted: str,
        pre_budget: Any,
        operation: Optional[str] = None,
        detail: Optional[str] = None,
        query: Optional[str] = None,
        scores: Optional[List[float]] = None,
        *,
        next_cursor: Optional[str] = None,
        descriptor: Optional[str] = None,
        context_remaining_tokens: Optional[int] = None,
        mode: Optional[str] = None,
        threshold: Optional[int] = None,
        request: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """The ``inject_context`` rule: the pre-budget result set decides.

        Above the threshold ``pre_budget`` (records, or JSON text) is offloaded and the
        descriptor returned; otherwise ``formatted`` (the budgeted prompt text) is returned
        inline as ``results``. ``operation`` defaults to ``"inject"``; other arguments and
        errors as for :meth:`offload`.
        """
    def intercept_tool_result(
        self,
        result: Any,
        tool_name: str = "",
        *,
        arguments: Optional[Any] = None,
        client_is_proxy: bool = False,
        output_schema_declared: bool = False,
        context: Optional[Mapping[str, Any]] = None,
        extract_tool: Optional[str] = None,
        rule: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Applies LRO to an MCP ``CallToolResult`` (a dict in wire form).

        Returns ``{"result": CallToolResult, "action": "offloaded" | "inline" | "bypassed" |
        "truncated", "response": descriptor (when offloaded)}``. The operation comes from
        ``tool_name``, ``detail`` and ``query`` from ``arguments``; a proxy client or a
        declared ``outputSchema`` (or ``mcp.never_offload`` naming the tool) bypasses LRO;
        the configuration's most specific rule for ``tool_name`` (:attr:`Config.tools`), or
        ``rule``, this call's own (``{"mode": "never"}``), decides and shapes the offload;
        ``extract_tool`` is the extract tool's name as listed, which the descriptor names. ``context`` takes the whole
        ``ToolCallContext`` as a dict instead (its ``operation`` key names the files and the
        summary in place of the one ``tool_name`` gives; a rule's ``operation`` still wins). A result that is not JSON raises
        :class:`InputError` (``invalid_input``); a bad ``context``
        :class:`ExtractionError` (``invalid_argument``).
        """
    def extract(
        self,
        file_path: Union[str, "os.PathLike[str]"],
        recipe: Optional[int] = None,
        query: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
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
        request: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Native extraction from an offload file in the output directory.

        Exactly one of: ``recipe`` (1-10, with ``params``); ``query`` (a jq filter, ``params``
        bound as ``$name``); ``lines`` (``{"start", "end", "unit"}``); ``search``
        (``{"pattern", "ignore_case", "max_results"}``); a structured query, ``where`` (a
        MongoDB filter document) shaped by ``fields``, ``sort``, ``skip``, ``limit`` or
        summarized by one of ``count``, ``group_by``, ``distinct``, ``stats``; or
        ``describe=True`` (the file's full descriptor). ``section`` scopes a query, structured
        query, lines or search to one section. ``request`` takes the whole request as a dict.

        Returns ``{"results": [...], "count", "truncated", "bytes_read", "records_read"}`` plus,
        when a limit cut it, ``"limit"``, ``"returned"``, ``"total"``, ``"hint"``, and for a
        structured query ``"jq"`` and ``"warnings"``. Raises :class:`ExtractionError`
        (``invalid_argument``, ``invalid_query``, ``query_failed``, ``resource_limit``),
        :class:`PathError`
        (``path_denied``, ``not_found``), :class:`InputError` (``invalid_input``: a file that
        is not a valid offload file) or :class:`StorageError` (``io_error``).
        """
    def extract_tool_call(self, arguments: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Answers one call of the extract tool as every LRO surface answers it.

        ``arguments`` are the call's arguments as the client sent them (``None`` values are
        absent; ``where``, ``params``, ``sort`` and ``fields`` as JSON text or as objects;
        ``lines`` and ``chars`` as ``"START:END"``). Returns a ``CallToolResult`` as a dict:
        ``{"content": [{"type": "text", "text": ...}], "isError": bool}``, the text being the
        answer alone (a count is the number), bounded by ``extract.answer_max_bytes`` and
        ``extract.answer_max_tokens`` with a ``[truncated]`` line naming the next call; an
        error's text starts with ``error[code]: ``. With ``save: true`` the output is written
        as a new offload file and the answer is what an offloaded tool result holds (the
        descriptor as text, whose ``resource_uri`` is a result handle; a ``resource_link``
        block and ``structuredContent`` per ``mcp.*``). Never raises for a bad call.
        """
    def resolve_tool_call(self, arguments: Optional[Mapping[str, Any]] = None) -> Optional[Dict[str, Any]]:
        """Resolves the result handles in one ``tools/call``'s arguments before the tool runs.

        A handle is an argument value ``{"$lro": resource_uri or file_path, ...}`` with the
        extract tool's keys that choose records (``where``, ``query``, ``params``, ``fields``,
        ``sort``, ``limit``, ``count``, ``group_by``, ...) and ``as``: ``"json"`` (the default:
        the records as a list), ``"jsonl"`` (one string of JSON lines) or ``"text"`` (one string,
        one record per line, strings unquoted). Every handle is read before any is put in,
        within ``extract.handle_max_bytes`` for the whole call.

        Returns ``None`` when the arguments hold no handle (call the tool with them as given);
        ``{"arguments": ...}``, the arguments with every handle replaced by its data; or, when a
        handle cannot be resolved, ``{"result": ..., "code": ..., "argument": ...}``: the
        ``isError`` ``CallToolResult`` to answer instead of calling the tool (its text
        ``error[code]: argument `PATH` holds a result handle that cannot be resolved: ...``),
        the error's code and the handle's place (a JSON pointer without its ``/``:
        ``content``, ``items/2/body``). Never raises for a bad handle.
        """
    def cleanup(self) -> Dict[str, Any]:
        """Deletes offload files whose time-to-live has passed.

        Returns ``{"removed": [{"file_path", "created_at", "age_seconds"}], "kept": N,
        "errors": [str]}``; a missing output directory is an empty report.
        """
    def list_resources(self, cursor: Optional[str] = None) -> Dict[str, Any]:
        """One page of the offload files as MCP resources (``lro://offloads/{file}``), newest first.

        Returns ``{"resources": [{"uri", "name", "title", "description", "mimeType",
        "size"}], "nextCursor"?}``; pass ``nextCursor`` back as ``cursor`` for the next page.
        A cursor that is not one raises :class:`ExtractionError` (``invalid_argument``).
        """
    def read_resource(self, uri: str) -> Dict[str, Any]:
        """Reads the resource ``uri``: ``{"contents": [{"uri", "mimeType", "text"}]}``.

        ``lro://offloads/{file}`` is the file as written, ``.../records`` the file without its
        header line. A URI outside ``lro://offloads/`` raises :class:`ExtractionError`
        (``invalid_argument``); a name that is no offload file's :class:`PathError`
        (``path_denied``); a missing or expired file :class:`PathError` (``not_found``).
        """
    def estimate_tokens(self, text: str) -> int:
        """Estimated tokens of ``text`` with this offloader's estimator."""

def config_keys() -> List[Dict[str, Any]]:
    """Every configuration key, as the core's table lists it: ``name`` (dotted for a section's
    key: ``extract.timeout_ms`` is ``Config(extract={"timeout_ms": ...})``), ``env`` (its
    environment variable), ``toml`` (its table), ``type``, ``bounds``, ``default``, ``doc``,
    and ``sample`` / ``bad`` (a valid value other than the default, and a refused one)."""

def operation_for_tool(tool_name: str) -> str:
    """The LRO operation name for an MCP tool name (``recall_memories`` -> ``recall``; any
    other name made file-name safe)."""

def extract_tool_for_server(server_name: Optional[str] = None) -> str:
    """The extract tool's name for a server named ``server_name``: ``lro_extract_<server>``
    (lowercased, each run of other characters one ``_``, at most 64 characters), or
    ``lro_extract`` without a name."""

def extract_tool_definition(form: str = "short") -> Dict[str, Any]:
    """The extract tool's definition in ``form`` (``"short"``, the default, or ``"long"``:
    the configuration's ``mcp.extract_tool_definition``): ``{"description", "inputSchema"}``,
    as every LRO surface lists it. Another form raises :class:`ConfigError`."""

def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` with the built-in heuristic (characters / 4 for Latin
    script, one per character for wide scripts)."""

def error_for_code(code: str, message: str) -> Exception:
    """The exception (not raised) an error ``code`` gives: an instance of
    ``CODE_CLASSES[code]``, or of :class:`LroError` for an unknown code, with ``.code`` set."""

def resource_link(file_path: str) -> Dict[str, Any]:
    """The MCP ``resource_link`` content block of the offload file ``file_path``:
    ``{"type": "resource_link", "uri", "name", "mimeType"}``."""

def resource_error_code(code: str) -> int:
    """The JSON-RPC error code for a failed resource request with error ``code``:
    ``not_found`` -32002, ``path_denied`` and ``invalid_argument`` -32602, any other -32603."""
