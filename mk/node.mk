# Node addon: bindings-node, a napi-rs addon with its committed index.d.ts.
# Needs node >= 20 and npm (on the machine); everything else comes from package-lock.json.

NODE_DIR := bindings-node
# npm writes this file on every install: newer than package-lock.json means up to date.
NODE_STAMP := $(NODE_DIR)/node_modules/.package-lock.json
# napi builds in the workspace's own target dir (cargo metadata), release profile.
NODE_NAPI = cd $(CURDIR)/$(NODE_DIR) && npx --no-install napi

TEST_TARGETS += test-node
SETUP_TARGETS += setup-node

# `npm install`, not `npm ci`: the napi CLI's optional per-platform packages that the registry
# here does not carry are left out of the lock file, which `npm ci` rejects as out of sync.
# With the committed lock file `npm install` installs exactly the locked versions.
$(NODE_STAMP): $(NODE_DIR)/package-lock.json $(NODE_DIR)/package.json
	cd $(NODE_DIR) && npm install --no-audit --no-fund

setup-node: $(NODE_STAMP) ## Install the Node addon's npm dependencies (napi CLI, MCP SDK, TypeScript) when the lock file changed

# The build checks that napi's regenerated index.d.ts is the one it found (the committed one
# in a clean checkout); test-node's suite compares it with the committed one again.
build-node: setup-node ## Build the Node addon in release and regenerate index.js / index.d.ts (fails if index.d.ts was stale)
	@baseline=$$(mktemp) && cp $(NODE_DIR)/index.d.ts $$baseline && \
	  $(NODE_NAPI) build --platform --profile $(NATIVE_PROFILE) && \
	  if ! cmp -s $$baseline $(CURDIR)/$(NODE_DIR)/index.d.ts; then \
	    diff -u $$baseline $(CURDIR)/$(NODE_DIR)/index.d.ts | head -40; rm -f $$baseline; \
	    echo "$(NODE_DIR)/index.d.ts was stale: napi regenerated it from the Rust types (above); commit the new file"; exit 1; \
	  fi; rm -f $$baseline

# The suite runs on the addon build-node built: a napi build compiles lro-node again every
# time (about two minutes here), so it is built once per run. The suite's own test compares
# index.d.ts with the committed one.
test-node: build-node ## Node addon: node --test (vectors, API, errors, MCP end to end, index.d.ts as committed) on the release build
	cd $(NODE_DIR) && node --test __test__/*.test.mjs

bench-node: build-node ## Node addon vs a hand-written JS offloader, its JSON-text path and the Rust core, at 200 and 10,000 memories
	$(CARGO) build --release --target $(HOST_TRIPLE) -p lro-core --example offload_timing
	cd $(NODE_DIR) && node bench/offload.mjs --native $(CURDIR)/target/$(HOST_TRIPLE)/release/examples/offload_timing

.PHONY: setup-node build-node test-node bench-node
