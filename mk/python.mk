# Python wheel: bindings-python, a pyo3 extension built by maturin (abi3, CPython 3.9+),
# tested in its own venv with the wheel installed as a user would (not an editable install).

PY_DIR := bindings-python
PY_VENV := $(PY_DIR)/.venv
PY := $(PY_VENV)/bin/python
# Written after a successful install: newer than requirements-dev.txt means the venv is up to date.
PY_STAMP := $(PY_VENV)/.installed
# Release build in the workspace's target dir, for HOST_TRIPLE: shared with the other release
# builds of the core (Makefile).
PY_WHEELS := $(CURDIR)/target/wheels-python

TEST_TARGETS += test-python
SETUP_TARGETS += setup-python

$(PY_STAMP): $(PY_DIR)/requirements-dev.txt | $(UV)
	$(call venv,$(PY_VENV))
	$(call pip,$(PY_VENV)) -r $(PY_DIR)/requirements-dev.txt
	touch $@

# The official SDK's 1.x line (FastMCP), which lro.mcp serves too: a venv of its own for the
# server test_mcp_e2e.py starts there (the client stays the 2.x one of .venv).
PY_MCP1_VENV := $(PY_DIR)/.venv-mcp1
PY_MCP1_STAMP := $(PY_MCP1_VENV)/.installed

$(PY_MCP1_STAMP): $(PY_DIR)/requirements-mcp1.txt | $(UV)
	$(call venv,$(PY_MCP1_VENV))
	$(call pip,$(PY_MCP1_VENV)) -r $(PY_DIR)/requirements-mcp1.txt
	touch $@

setup-python: $(PY_STAMP) $(PY_MCP1_STAMP) ## Create bindings-python/.venv (maturin, pytest, mypy, mcp, fastmcp) and .venv-mcp1 (mcp 1.x), once

build-python: setup-python ## Build the `lro` wheel (release, abi3) and install it into the venv
	rm -rf $(PY_WHEELS)
	cd $(PY_DIR) && .venv/bin/maturin build --profile $(NATIVE_PROFILE) --target $(HOST_TRIPLE) --quiet --out $(PY_WHEELS)
	$(call pip,$(PY_VENV)) --reinstall --no-deps $(PY_WHEELS)/lro-*.whl
	$(call pip,$(PY_MCP1_VENV)) --reinstall --no-deps $(PY_WHEELS)/lro-*.whl

test-python: build-python ## Python wheel: stubs checked by mypy stubtest, then pytest (vectors, API, errors, MCP end to end)
	cd $(PY_DIR) && .venv/bin/python -m mypy.stubtest lro --allowlist stubtest-allowlist.txt
	cd $(PY_DIR) && .venv/bin/python -m pytest -q

# The Rust core on the benchmark's own records: the core's `offload_timing` example, release.
PY_BENCH_NATIVE := $(CURDIR)/target/$(HOST_TRIPLE)/release/examples/offload_timing

bench-python: build-python ## Python wheel vs the Rust core, a hand-written and an orjson offloader, at 200 and 10,000 memories
	$(CARGO) build --release --target $(HOST_TRIPLE) -p lro-core --example offload_timing
	cd $(PY_DIR) && .venv/bin/python bench/bench_offload.py --native $(PY_BENCH_NATIVE)

.PHONY: setup-python build-python test-python bench-python
