"""Type stubs of the ``lro._lro`` extension module (Rust, pyo3). Checked by ``mypy.stubtest``."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union, final

__all__ = [
    "Config",
    "Offloader",
    "operation_for_tool",
    "estimate_tokens",
    "error_for_code",
    "__version__",
    "ERROR_CODES",
    "DEFAULT_THRESHOLD_TOKENS",
    "DEFAULT_TTL_SECONDS",
    "EXTRACT_TOOL_DESCRIPTION",
    "EXTRACT_QUERY_PARAMETERS",
    "EXTRACT_TOOL_INPUT_SCHEMA",
]

__version__: str
ERROR_CODES: Tuple[str, ...]
DEFAULT_THRESHOLD_TOKENS: int
DEFAULT_TTL_SECONDS: int
EXTRACT_TOOL_DESCRIPTION: str
EXTRACT_QUERY_PARAMETERS: Dict[str, str]
EXTRACT_TOOL_INPUT_SCHEMA: Dict[str, Any]

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
        enabled: Optional[bool] = None,
        threshold_tokens: Optional[int] = None,
        ttl_seconds: Optional[int] = None,
        output_dir: Union[str, "os.PathLike[str]", None] = None,
        file_prefix: Optional[str] = None,
        guidance: Optional[str] = None,
        descriptor: Optional[str] = None,
        adaptive_ratio: Optional[float] = None,
        extract: Optional[Mapping[str, int]] = None,
        store: Optional[Mapping[str, int]] = None,
    ) -> "Config": ...
    @staticmethod
    def from_toml(source: Union[str, "os.PathLike[str]"]) -> "Config": ...
    @staticmethod
    def from_env(environ: Optional[Mapping[str, str]] = None) -> "Config": ...
    def with_env(self, environ: Optional[Mapping[str, str]] = None) -> "Config": ...
    def replace(self, **changes: Any) -> "Config": ...
    def to_dict(self) -> Dict[str, Any]: ...
    @property
    def enabled(self) -> bool: ...
    @property
    def threshold_tokens(self) -> int: ...
    @property
    def ttl_seconds(self) -> int: ...
    @property
    def output_dir(self) -> str: ...
    @property
    def file_prefix(self) -> str: ...
    @property
    def guidance(self) -> str: ...
    @property
    def descriptor(self) -> str: ...
    @property
    def adaptive_ratio(self) -> float: ...
    @property
    def extract(self) -> Dict[str, int]: ...
    @property
    def store(self) -> Dict[str, int]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __ne__(self, value: object, /) -> bool: ...

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
    ) -> "Offloader": ...
    @property
    def config(self) -> Config: ...
    @property
    def output_dir(self) -> str: ...
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
        request: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]: ...
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
        request: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]: ...
    def intercept_tool_result(
        self,
        result: Any,
        tool_name: str = "",
        *,
        arguments: Optional[Any] = None,
        client_is_proxy: bool = False,
        output_schema_declared: bool = False,
        context: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]: ...
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
    ) -> Dict[str, Any]: ...
    def cleanup(self) -> Dict[str, Any]: ...
    def estimate_tokens(self, text: str) -> int: ...

def operation_for_tool(tool_name: str) -> str: ...
def estimate_tokens(text: str) -> int: ...
def error_for_code(code: str, message: str) -> Exception: ...
