"""The `lro_extract` tool function that ``lro.mcp`` and ``lro.fastmcp`` register.

Its parameters are every argument of the core's input schema (the long form), property by
property: each one's JSON Schema is the core's own (``WithJsonSchema``), while the values are
taken as given (``Any``) and read by the core, which also accepts the object forms older
clients send. So no argument a client sends is dropped, whichever form is listed; the
helpers then list the configured form exactly (``lro.mcp``, ``lro.fastmcp``). The answer is
the core's too (:meth:`lro.Offloader.extract_tool_call`). Needs pydantic (every MCP SDK has
it).
"""

import inspect
from typing import Annotated, Any, Callable, Dict, List

from pydantic import Field, WithJsonSchema

from ._lro import extract_tool_definition



def _parameter(name: str, schema: Dict[str, Any]) -> inspect.Parameter:
    """The tool function's parameter ``name``, published with the core's ``schema`` (and a
    description only where the core gives one: the short form gives none)."""
    description = schema.get("description")
    field = Field(description=str(description)) if description else Field()
    if name == "file_path":
        annotation: Any = Annotated[str, field]
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
    annotation = Annotated[Any, WithJsonSchema(dict(schema)), field]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)


_PARAMETERS: List[inspect.Parameter] = [
    _parameter(name, schema) for name, schema in extract_tool_definition("long")["inputSchema"]["properties"].items()
]


def extract_tool_function(call: Callable[[Dict[str, Any]], Any]) -> Callable[..., Any]:
    """The tool function; ``call(arguments)`` answers with the arguments the client gave
    (``None`` ones left out)."""
    parameters = _PARAMETERS

    def lro_extract(**arguments: Any) -> Any:
        return call({name: value for name, value in arguments.items() if value is not None})

    # The SDKs read the parameters from the signature and the type hints.
    setattr(lro_extract, "__signature__", inspect.Signature(parameters, return_annotation=Any))
    lro_extract.__annotations__ = {p.name: p.annotation for p in parameters}
    lro_extract.__annotations__["return"] = Any
    return lro_extract
