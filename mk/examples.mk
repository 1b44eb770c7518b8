# examples/: each example runs against the builds `make test` already made (the
# wheel in bindings-python/.venv, the Node addon, the WASI component, the release `lro`) and
# asserts its own output. `make test-dist` runs the same examples against the dist/ artifacts.

EXAMPLES := examples
# The TypeScript example installs the addon as npm packs it (--install-links), not a symlink.
EXAMPLES_TS := $(EXAMPLES)/typescript-mcp-server

examples: setup-python build-python setup-node build-node build-wasm-component setup-proxy build-proxy ## Run every example in examples/ against this checkout's builds
	@echo "== rust-host"
	@# Without make's MAKEFLAGS: under `make -j2` cargo would get a jobserver it cannot open.
	MAKEFLAGS= $(CARGO) run --quiet -p lro-example-host
	@echo "== python-mcp-server"
	$(PY) $(EXAMPLES)/python-mcp-server/client.py
	@echo "== typescript-mcp-server"
	@# npm keeps an installed file: dependency of the same version: removed to take this build.
	cd $(EXAMPLES_TS) && rm -rf node_modules/lro && npm install --install-links --no-audit --no-fund --loglevel=error && npx --no-install tsc && node dist/client.js
	@echo "== wasi-python"
	$(WASM_VENV)/bin/python $(EXAMPLES)/wasi-python/host.py $(WASM_COMPONENT)
	@echo "== wasi-node (the jco transpilation test-wasm made; bindings-wasm's preview2-shim)"
	test -e $(EXAMPLES)/wasi-node/node_modules || ln -s ../../$(WASM_DIR)/node_modules $(EXAMPLES)/wasi-node/node_modules
	node $(EXAMPLES)/wasi-node/host.mjs $(WASM_DIR)/component/dist/jco
	@echo "== mcp-client-config (lro on PATH; the servers installed for the proxy tests)"
	cd $(PROXY_E2E) && PATH=$(dir $(PROXY_LRO)):$$PATH $(CURDIR)/$(PY) $(CURDIR)/$(EXAMPLES)/mcp-client-config/check.py \
	  $(CURDIR)/$(EXAMPLES)/mcp-client-config/claude-code.mcp.json $(CURDIR)/$(EXAMPLES)/mcp-client-config/cursor.mcp.json

.PHONY: examples
