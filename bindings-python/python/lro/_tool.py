"""The `lro_extract` tool function that ``lro.mcp`` and ``lro.fastmcp`` register.

Its parameters are the core's input schema in the configured form (short or long,
``mcp.extract_tool_definition``), property by property (as the ``lro proxy`` publishes it):
each one's JSON Schema is the core's own (``WithJsonSchema``), so an MCP SDK publishes the
same flat, nullable, strict-mode friendly schema, while the values are taken as given
(``Any``) and read by the core, which also accepts the object forms older clients send. The
answer is the core's too (:meth:`lro.Offloader.extract_tool_call`). Needs pydantic (every MCP
SDK has it).
"""

import inspect
from typing import Annotated, Any, Callable, Dict, List

from pydantic import Field, WithJsonSchema



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


def extract_tool_function(call: Callable[[Dict[str, Any]], Any], input_schema: Dict[str, Any]) -> Callable[..., Any]:
    """The tool function with the parameters of ``input_schema`` (the core's, in the
    configured form); ``call(arguments)`` answers with the arguments the client gave
    (``None`` ones left out)."""
    parameters: List[inspect.Parameter] = [_parameter(name, schema) for name, schema in input_schema["properties"].items()]

    def lro_extract(**arguments: Any) -> Any:
        return call({name: value for name, value in arguments.items() if value is not None})

    # The SDKs read the parameters from the signature and the type hints.
    setattr(lro_extract, "__signature__", inspect.Signature(parameters, return_annotation=Any))
    lro_extract.__annotations__ = {p.name: p.annotation for p in parameters}
    lro_extract.__annotations__["return"] = Any
    return lro_extract
