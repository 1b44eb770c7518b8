# Agent frameworks: each Python framework's real agent loop (its own MCP client and
# OpenAI model adapter) against the scripted model server (tests/frameworks/scripted_model.py),
# through `lro proxy`, through the Python helper (the wheel), and direct. Two venvs, created
# once: llama-index-tools-mcp 0.6.0 needs mcp 2.x and the OpenAI SDK 2.x, the others
# (langchain-mcp-adapters 0.3.2) mcp 1.x and the OpenAI SDK 3.x.

FW_DIR := tests/frameworks
FW_VENV := $(FW_DIR)/.venv
FW_LLAMA_VENV := $(FW_DIR)/.venv-llama-index
# Every transitive version is pinned (pip freeze of a working install): nothing is resolved.
# The npm MCP servers of the proxy e2e tests (mk/proxy.mk installs them; named here in full,
# since prerequisites expand when read, before proxy.mk is).
FW_NPM_SERVERS := cli/tests/e2e/node_modules/.installed

$(FW_VENV)/.installed: $(FW_DIR)/requirements.txt $(FW_DIR)/constraints.txt | $(UV)
	$(call venv,$(FW_VENV))
	$(call pip,$(FW_VENV)) -r $(FW_DIR)/requirements.txt -c $(FW_DIR)/constraints.txt
	touch $@

$(FW_LLAMA_VENV)/.installed: $(FW_DIR)/requirements-llama-index.txt $(FW_DIR)/constraints-llama-index.txt | $(UV)
	$(call venv,$(FW_LLAMA_VENV))
	$(call pip,$(FW_LLAMA_VENV)) -r $(FW_DIR)/requirements-llama-index.txt -c $(FW_DIR)/constraints-llama-index.txt
	touch $@

# The two venvs side by side: installing is mostly waiting on the network, and the cold
# `make test` has a time budget.
setup-frameworks: $(FW_NPM_SERVERS) ## Install the Python agent frameworks (two venvs in tests/frameworks) and the npm MCP servers, once
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(FW_VENV)/.installed $(FW_LLAMA_VENV)/.installed

# The wheel `make build-python` built, into both venvs (the Python helper's server runs there).
install-frameworks-wheel: setup-frameworks build-python
	$(call pip,$(FW_VENV)) --reinstall --no-deps $(PY_WHEELS)/lro-*.whl
	$(call pip,$(FW_LLAMA_VENV)) --reinstall --no-deps $(PY_WHEELS)/lro-*.whl

FW_TESTS := test_langchain.py test_openai_agents.py test_pydantic_ai.py test_smolagents.py
FW_LLAMA_TESTS := test_llama_index.py

test-frameworks: install-frameworks-wheel build-proxy ## Python agent frameworks (LangChain, OpenAI Agents, pydantic-ai, smolagents, LlamaIndex) in real agent loops on a scripted model, through lro proxy and the Python helper
	@# Both venvs' suites run, whatever the first gives; the target fails if either does.
	@# make's own variables stay out of the servers' environment: `make test VAR=value` puts
	@# `$${-*-command-variables-*-}` in MAKEOVERRIDES, which langchain-mcp-adapters warns about.
	cd $(FW_DIR) && unset MAKEOVERRIDES MAKEFLAGS MFLAGS && status=0 && export LRO_BIN=$(PROXY_LRO) && \
	  { .venv/bin/python -m pytest -q -p no:cacheprovider $(FW_TESTS) || status=1; } && \
	  { .venv-llama-index/bin/python -m pytest -q -p no:cacheprovider $(FW_LLAMA_TESTS) || status=1; } && \
	  exit $$status

measure-frameworks: install-frameworks-wheel build-proxy ## What the model receives for server-memory's read_graph (400 entities) in each Python framework, direct and through LRO (the README's frameworks table)
	cd $(FW_DIR) && LRO_BIN=$(PROXY_LRO) .venv/bin/python measure.py $(FW_TESTS)
	cd $(FW_DIR) && LRO_BIN=$(PROXY_LRO) .venv-llama-index/bin/python measure.py --rows-only $(FW_LLAMA_TESTS)

TEST_TARGETS += test-frameworks
SETUP_TARGETS += setup-frameworks

.PHONY: setup-frameworks install-frameworks-wheel test-frameworks measure-frameworks
