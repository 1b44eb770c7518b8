# `lro proxy` end-to-end tests: the official MCP Python client drives the proxy in front of
# third-party servers (npm @modelcontextprotocol/server-memory and server-filesystem; PyPI
# mcp-server-sqlite, mcp-server-duckdb and mcp-server-git) and a streamable-HTTP FastMCP server
# on loopback; the official TypeScript client (node --test) drives the gateway, `--listen`. The
# proxy's Rust tests run in test-rust. The gateway's load benchmark calls the conformance
# fixture (conformance.mk installs it).

PROXY_E2E := cli/tests/e2e
PROXY_VENV := $(PROXY_E2E)/.venv
# The PyPI servers pin SDKs the client's venv cannot hold beside its own: the database servers
# need mcp 1.x, mcp-server-git mcp 2.x. One venv each, created once and reused.
PROXY_DB_VENV := $(PROXY_E2E)/.venv-db
PROXY_GIT_VENV := $(PROXY_E2E)/.venv-git
# Where cargo puts the release binary (CARGO_TARGET_DIR is honoured, as cargo does), built for
# HOST_TRIPLE with NATIVE_PROFILE like the wheel and the Node addon (Makefile). Recursive (=):
# `make test` sets NATIVE_PROFILE for its own recipe.
PROXY_LRO = $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)/$(HOST_TRIPLE)/$(NATIVE_PROFILE)/lro

$(PROXY_VENV)/.installed: $(PROXY_E2E)/requirements.txt | $(UV)
	$(call venv,$(PROXY_VENV))
	$(call pip,$(PROXY_VENV)) -r $<
	touch $@

$(PROXY_DB_VENV)/.installed: $(PROXY_E2E)/requirements-db-servers.txt | $(UV)
	$(call venv,$(PROXY_DB_VENV))
	$(call pip,$(PROXY_DB_VENV)) -r $<
	touch $@

$(PROXY_GIT_VENV)/.installed: $(PROXY_E2E)/requirements-git-server.txt | $(UV)
	$(call venv,$(PROXY_GIT_VENV))
	$(call pip,$(PROXY_GIT_VENV)) -r $<
	touch $@

$(PROXY_E2E)/node_modules/.installed: $(PROXY_E2E)/package.json $(PROXY_E2E)/package-lock.json
	cd $(PROXY_E2E) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup-proxy: $(PROXY_VENV)/.installed $(PROXY_DB_VENV)/.installed $(PROXY_GIT_VENV)/.installed $(PROXY_E2E)/node_modules/.installed ## Install the proxy e2e dependencies (venvs, npm and PyPI servers)

build-proxy: ## Build the release `lro` binary the proxy tests and benchmark run
	$(CARGO) build --profile $(NATIVE_PROFILE) --target $(HOST_TRIPLE) -p lro-cli

test-proxy: setup-proxy build-proxy ## `lro proxy` end-to-end tests against real MCP servers (npm, PyPI) and a remote HTTP server
	cd $(PROXY_E2E) && LRO_BIN=$(PROXY_LRO) .venv/bin/python -m pytest -q -p no:cacheprovider
	cd $(PROXY_E2E) && LRO_BIN=$(PROXY_LRO) node --test gateway_client.test.mjs

bench-proxy: setup-proxy build-proxy ## Added latency of `lro proxy` (inline and 200-memory offloaded calls), in figures
	$(PROXY_E2E)/.venv/bin/python $(PROXY_E2E)/bench_proxy.py --lro $(PROXY_LRO)

bench-gateway: setup-proxy setup-conformance build-proxy ## Load on `lro proxy --listen`: 50 concurrent sessions x 20 calls (a third offloaded) through the gateway and directly: calls answered, cross-session leaks, p50/p99 added latency, peak RSS
	node $(PROXY_E2E)/bench_gateway.mjs --lro $(PROXY_LRO) --sessions 50 --calls 20

measure-proxy: setup-proxy build-proxy ## What the client receives from each real server's large call through `lro proxy`, and the records in the file
	$(PROXY_E2E)/.venv/bin/python $(PROXY_E2E)/measure_real_servers.py --lro $(PROXY_LRO)

bench-proxy-memory: setup-proxy build-proxy ## Peak memory of `lro proxy` for a 56 MB FastMCP result, `dict` and `str` shapes (official Python client); fails above 3x the result
	$(PROXY_E2E)/.venv/bin/python $(PROXY_E2E)/bench_proxy_memory.py --lro $(PROXY_LRO) --max-ratio 3

TEST_TARGETS += test-proxy
SETUP_TARGETS += setup-proxy

.PHONY: setup-proxy build-proxy test-proxy bench-proxy bench-gateway measure-proxy bench-proxy-memory
