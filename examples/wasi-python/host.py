"""Hosts the LRO WASI Preview 2 component from Python with wasmtime (PyPI `wasmtime`): the
plugin way to run LRO, with no native code of ours on the machine. The component sees only
the directory preopened here; it offloads 1,500 log events there and answers a structured
query from the file. Exits non-zero when anything is not as described.

    pip install wasmtime==50.0.1
    python host.py lro.component.wasm
"""

from __future__ import annotations

import json
import sys
import tempfile

from wasmtime import Config, Engine, Store, WasiConfig
from wasmtime.component import Component, Linker, Variant

INTERFACE = "lro:offload/offloader@0.1.0"


def main(component_path: str) -> None:
    engine = Engine(Config())
    component = Component.from_file(engine, component_path)
    linker = Linker(engine)
    linker.add_wasip2()  # standard WASI P2 only: the component imports nothing else

    output_dir = tempfile.mkdtemp(prefix="lro-wasi-")
    wasi = WasiConfig()
    wasi.preopen_dir(output_dir, output_dir)  # at its own path: descriptors name real paths
    store = Store(engine)
    store.set_wasi(wasi)
    instance = linker.instantiate(store, component)
    interface = instance.get_export_index(store, INTERFACE)

    def call(name: str, *args: object) -> object:
        func = instance.get_func(store, instance.get_export_index(store, name, interface))
        result = func(store, *args)
        if isinstance(result, Variant):  # the WIT lro-error: its case is the error code
            raise RuntimeError(f"{name} failed [{result.tag}]: {result.payload}")
        return json.loads(result)

    config = json.dumps({"output_dir": output_dir})
    events = [{"ts": i, "level": ["info", "warn", "error"][i % 3], "service": f"svc-{i % 4}", "msg": f"event {i}"}
              for i in range(1500)]
    outcome = call("offload", config, json.dumps(events), json.dumps({"operation": "tail_logs"}))
    assert outcome["offloaded"], outcome
    print(f"offloaded {outcome['summary']['count']} events ({outcome['summary']['estimated_tokens']} tokens) "
          f"to {outcome['file_path']}")

    query = {"where": {"level": "error", "service": "svc-2"}, "count": True}
    answer = call("extract", config, outcome["file_path"], json.dumps(query))
    assert answer["results"] == [125], answer
    print(f"errors of svc-2: {answer['results'][0]}")
    print("wasi-python: ok")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "lro.component.wasm")
