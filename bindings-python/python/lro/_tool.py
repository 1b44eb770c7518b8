"""The `lro_extract` tool function that ``lro.mcp`` and ``lro.fastmcp`` register.

Its parameters, their types and their descriptions are those of every LRO surface (the
descriptions come from the core, as the ``lro proxy`` publishes them), so an MCP SDK
builds the same input schema from this signature. Needs pydantic (every MCP SDK has it).
"""

from typing import Annotated, Any, Callable, Dict, List, Optional

from pydantic import Field

from ._lro import EXTRACT_QUERY_PARAMETERS as _Q

#: The request fields the tool passes on, in order.
REQUEST_FIELDS = (
    "where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct", "stats",
    "recipe", "query", "params", "lines", "search",
)


def extract_tool_function(call: Callable[[str, Dict[str, Any]], Any]) -> Callable[..., Any]:
    """The tool function; ``call(file_path, request)`` answers with the request's given fields."""

    def lro_extract(
        file_path: Annotated[str, Field(description="The offloaded result's file_path.")],
        where: Annotated[Optional[Dict[str, Any]], Field(description=_Q["where"])] = None,
        fields: Annotated[Optional[List[str]], Field(description=_Q["fields"])] = None,
        sort: Annotated[Optional[Dict[str, int]], Field(description=_Q["sort"])] = None,
        skip: Annotated[Optional[int], Field(ge=0, description=_Q["skip"])] = None,
        limit: Annotated[Optional[int], Field(ge=0, description=_Q["limit"])] = None,
        count: Annotated[Optional[bool], Field(description=_Q["count"])] = None,
        group_by: Annotated[Optional[str], Field(description=_Q["group_by"])] = None,
        distinct: Annotated[Optional[str], Field(description=_Q["distinct"])] = None,
        stats: Annotated[Optional[str], Field(description=_Q["stats"])] = None,
        recipe: Annotated[Optional[int], Field(ge=1, le=10, description="A recipe number from the result's jq_recipes.")] = None,
        query: Annotated[Optional[str], Field(description="A jq filter, run on each record, e.g. select(.namespace == $ns) | .title")] = None,
        params: Annotated[Optional[Dict[str, Any]], Field(description="Recipe parameters ({\"keyword\": \"cache\"}) or $variables of the query.")] = None,
        lines: Annotated[Optional[Dict[str, Any]], Field(description="Records {\"start\": 0, \"end\": 20} (end exclusive), or characters with \"unit\": \"chars\".")] = None,
        search: Annotated[Optional[Dict[str, Any]], Field(description="{\"pattern\": regex, \"ignore_case\": bool, \"max_results\": n}, searched in each record's JSON line.")] = None,
    ) -> Any:
        given = (where, fields, sort, skip, limit, count, group_by, distinct, stats, recipe, query, params, lines, search)
        return call(file_path, {name: value for name, value in zip(REQUEST_FIELDS, given) if value is not None})

    return lro_extract
