"""Host the LRO WASI P2 component from Python with wasmtime-py (PyPI ``wasmtime`` >= 50).

    from lro_wasmtime import LroComponent, LroError
    lro = LroComponent("lro.component.wasm", preopens=["/data/lro"])
    outcome = lro.offload({"output_dir": "/data/lro"}, memories, {"operation": "recall"})

Only standard WASI P2 is linked (``Linker.add_wasip2``); the component sees exactly the
directories preopened here, each at the same path as on the host, so the paths in
descriptors are real paths the agent's shell can open.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from wasmtime import Config, Engine, Store, WasiConfig
from wasmtime.component import Component, Linker, Variant

INTERFACE = "lro:offload/offloader@0.1.0"
FUNCTIONS = (
    "offload",
    "offload-inject",
    "intercept-tool-result",
    "extract",
    "cleanup",
    "config-from-toml",
    "config-from-env",
)


class LroError(Exception):
    """A failed call: ``code`` is the core's stable code (``invalid_config``, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message


def _json(value: Any) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False)


class LroComponent:
    """One instance of the component. Not thread-safe (one wasmtime Store)."""

    def __init__(self, path: str, preopens: Iterable[str] = (), env: dict[str, str] | None = None) -> None:
        self.engine = Engine(Config())
        self.component = Component.from_file(self.engine, path)
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        self._preopens = list(preopens)
        self._env = dict(env or {})
        self._instantiate()

    def _instantiate(self) -> None:
        wasi = WasiConfig()
        for directory in self._preopens:
            wasi.preopen_dir(directory, directory)
        if self._env:
            wasi.env = list(self._env.items())
        self.store = Store(self.engine)
        self.store.set_wasi(wasi)
        instance = self.linker.instantiate(self.store, self.component)
        iface = instance.get_export_index(self.store, INTERFACE)
        if iface is None:
            raise RuntimeError(f"{INTERFACE} is not exported by the component")
        self._funcs = {}
        for name in FUNCTIONS:
            index = instance.get_export_index(self.store, name, iface)
            self._funcs[name] = instance.get_func(self.store, index)

    def set_preopens(self, directories: Iterable[str]) -> None:
        """Grants access to exactly these directories (re-instantiates: WASI preopens are fixed
        when an instance starts; the compiled component is reused)."""
        self._preopens = list(directories)
        self._instantiate()

    def _call(self, name: str, *args: Any) -> Any:
        result = self._funcs[name](self.store, *args)
        if isinstance(result, Variant):
            # The lro-error case name is the core's code with "-" for "_".
            raise LroError(result.tag.replace("-", "_"), str(result.payload))
        return json.loads(result)

    def offload(self, config: dict | None, records: Any, request: dict | None = None) -> Any:
        """Offloads ``records`` (any JSON value; pass ``str`` via ``offload_json`` for raw JSON text)."""
        return self._call("offload", _json(config), json.dumps(records, ensure_ascii=False), _json(request))

    def offload_json(self, config: dict | None, records_json: str, request: dict | None = None) -> Any:
        """Offloads records given as JSON text (exact bytes, no Python round trip)."""
        return self._call("offload", _json(config), records_json, _json(request))

    def offload_inject(self, config: dict | None, formatted: str, pre_budget: Any, request: dict | None = None) -> Any:
        return self._call("offload-inject", _json(config), formatted, json.dumps(pre_budget, ensure_ascii=False), _json(request))

    def intercept_tool_result(self, config: dict | None, result: Any, context: dict | None = None) -> Any:
        return self._call("intercept-tool-result", _json(config), json.dumps(result, ensure_ascii=False), _json(context))

    def extract(self, config: dict | None, file_path: str, request: dict) -> Any:
        return self._call("extract", _json(config), file_path, json.dumps(request))

    def cleanup(self, config: dict | None = None) -> Any:
        return self._call("cleanup", _json(config))

    def config_from_toml(self, text: str) -> Any:
        return self._call("config-from-toml", text)

    def config_from_env(self, variables: dict[str, str]) -> Any:
        return self._call("config-from-env", list(variables.items()))
