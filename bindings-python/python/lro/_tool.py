"""The `lro_extract` tool function that ``lro.mcp`` and ``lro.fastmcp`` register.

Its parameters, their types and their descriptions are those of every LRO surface (the
descriptions come from the core's input schema, as the ``lro proxy`` publishes it), so an
MCP SDK builds the same input schema from this signature. Needs pydantic (every MCP SDK
has it).
"""

from typing import Annotated, Any, Callable, Dict, List, Optional

from pydantic import Field

from ._lro import EXTRACT_TOOL_INPUT_SCHEMA

_PROPERTIES: Dict[str, Dict[str, Any]] = EXTRACT_TOOL_INPUT_SCHEMA["properties"]


def _d(name: str) -> str:
    """The core's description of the argument ``name``."""
    return str(_PROPERTIES[name]["description"])


#: The request fields the tool passes on, in order.
REQUEST_FIELDS = (
    "where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct", "stats",
    "recipe", "query", "params", "lines", "search", "section", "describe",
)


def extract_tool_function(call: Callable[[str, Dict[str, Any]], Any]) -> Callable[..., Any]:
    """The tool function; ``call(file_path, request)`` answers with the request's given fields."""

    def lro_extract(
        file_path: Annotated[str, Field(description=_d("file_path"))],
        where: Annotated[Optional[Dict[str, Any]], Field(description=_d("where"))] = None,
        fields: Annotated[Optional[List[str]], Field(description=_d("fields"))] = None,
        sort: Annotated[Optional[Dict[str, int]], Field(description=_d("sort"))] = None,
        skip: Annotated[Optional[int], Field(ge=0, description=_d("skip"))] = None,
        limit: Annotated[Optional[int], Field(ge=0, description=_d("limit"))] = None,
        count: Annotated[Optional[bool], Field(description=_d("count"))] = None,
        group_by: Annotated[Optional[str], Field(description=_d("group_by"))] = None,
        distinct: Annotated[Optional[str], Field(description=_d("distinct"))] = None,
        stats: Annotated[Optional[str], Field(description=_d("stats"))] = None,
        recipe: Annotated[Optional[int], Field(ge=1, le=10, description=_d("recipe"))] = None,
        query: Annotated[Optional[str], Field(description=_d("query"))] = None,
        params: Annotated[Optional[Dict[str, Any]], Field(description=_d("params"))] = None,
        lines: Annotated[Optional[Dict[str, Any]], Field(description=_d("lines"))] = None,
        search: Annotated[Optional[Dict[str, Any]], Field(description=_d("search"))] = None,
        section: Annotated[Optional[str], Field(description=_d("section"))] = None,
        describe: Annotated[Optional[bool], Field(description=_d("describe"))] = None,
    ) -> Any:
        given = (
            where, fields, sort, skip, limit, count, group_by, distinct, stats,
            recipe, query, params, lines, search, section, describe,
        )
        return call(file_path, {name: value for name, value in zip(REQUEST_FIELDS, given) if value is not None})

    return lro_extract
