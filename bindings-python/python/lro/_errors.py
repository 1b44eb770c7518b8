"""Exception classes of :mod:`lro`.

Every error the Rust core reports carries a stable code (``invalid_config``,
``path_denied``, ...), the same in every LRO binding. Each code maps to exactly one class
below; ``err.code`` holds the code itself, so callers can catch a family and still branch
on the exact reason::

    try:
        lro.extract(path, query=".title | ascii_downcase(")
    except lro.ExtractionError as err:
        assert err.code == "invalid_query"
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = [
    "LroError",
    "ConfigError",
    "InputError",
    "PathError",
    "ExtractionError",
    "StorageError",
    "CODE_CLASSES",
]


class LroError(ValueError):
    """Base class of every LRO error; ``code`` is the core's stable error code."""

    #: Code used when the exception is raised by hand without one.
    default_code = "lro_error"

    code: str

    def __init__(self, message: str, code: Optional[str] = None) -> None:
        self.code = code if code is not None else self.default_code
        # Both in args so that pickling (BaseException.__reduce__) keeps the code.
        super().__init__(message, self.code)

    @property
    def message(self) -> str:
        """The human-readable message, without the code."""
        return str(self.args[0])

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.code))


class ConfigError(LroError):
    """A configuration key has a value of the wrong type or out of range (``invalid_config``)."""

    default_code = "invalid_config"


class InputError(LroError):
    """The records, detail level or operation name cannot be used.

    Codes: ``invalid_input`` (not JSON, or not convertible to JSON), ``invalid_detail`` (not
    ``light``/``medium``/``full``), ``invalid_operation`` (not a safe file-name part).
    """

    default_code = "invalid_input"


class PathError(LroError):
    """A file path was refused or does not exist.

    Codes: ``path_denied`` (outside the output directory, a symbolic link out of it, or not
    an offload file), ``not_found``.
    """

    default_code = "path_denied"


class ExtractionError(LroError):
    """Native extraction arguments or the jq filter failed.

    Codes: ``invalid_argument`` (not exactly one of recipe/query/lines/search, unknown
    recipe, bad parameter), ``invalid_query`` (the filter does not compile),
    ``query_failed`` (it failed on a record), ``resource_limit`` (it went past a bound of the
    sandbox: a value nested more than 1024 levels, recursion too deep, or more memory than
    ``extract.max_memory_bytes``).
    """

    default_code = "invalid_argument"


class StorageError(LroError):
    """Any other I/O failure reported by the file system (``io_error``)."""

    default_code = "io_error"


#: The class each core error code raises: the one table of it. The extension module reads it
#: (and the classes) once, at its first error; a code not listed here raises :class:`LroError`.
CODE_CLASSES = {
    "invalid_config": ConfigError,
    "invalid_input": InputError,
    "invalid_detail": InputError,
    "invalid_operation": InputError,
    "invalid_argument": ExtractionError,
    "invalid_query": ExtractionError,
    "query_failed": ExtractionError,
    "resource_limit": ExtractionError,
    "path_denied": PathError,
    "not_found": PathError,
    "io_error": StorageError,
}
