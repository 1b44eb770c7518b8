# The browser: the wasm-bindgen package's web build in headless Chromium (every
# conformance vector, in the page and in a Web Worker) and the playground
# (bindings-wasm/playground/, static files). Chromium is Debian's package; playwright-core
# (pinned in bindings-wasm/package-lock.json) drives it and downloads no browser of its own.

BROWSER_CHROMIUM := /usr/bin/chromium
PLAYGROUND_PORT ?= 8765

# This file comes after wasm.mk (make includes mk/*.mk in name order), so in `make test` the
# browser suite runs after test-wasm, whose build-wasm builds both artifacts side by side.
TEST_TARGETS += test-browser
SETUP_TARGETS += setup-browser

setup-browser: ## Install Debian's chromium and playwright-core (npm), reusing what is present
	@test -x $(BROWSER_CHROMIUM) || { echo "installing chromium"; \
	  apt-get install -y -qq --no-install-recommends chromium \
	    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; }; }
	@test -d $(WASM_DIR)/node_modules/playwright-core || (cd $(WASM_DIR) && npm install --no-audit --no-fund --loglevel=error)

test-browser: build-wasm-js setup-browser ## The vectors on the web build in Chromium (page and worker), and the playground's test
	@echo "== wasm-bindgen web build in headless Chromium: every vector, in the page and in a Web Worker"
	cd $(WASM_DIR) && LRO_CHROMIUM=$(BROWSER_CHROMIUM) node --test --test-timeout=300000 --test-reporter=dot tests/browser.test.mjs
	@echo "== the playground in headless Chromium (screenshots in target/playground/)"
	cd $(WASM_DIR) && LRO_CHROMIUM=$(BROWSER_CHROMIUM) node --test --test-timeout=300000 tests/playground.test.mjs

playground: build-wasm-js ## Serve the playground on http://127.0.0.1:8765/playground/ (PLAYGROUND_PORT=N for another port)
	node $(WASM_DIR)/tests/browser/static-server.mjs $(PLAYGROUND_PORT)

bench-playground: build-wasm-js setup-browser ## The playground's bytes (raw, gzip) and its load time in headless Chromium
	cd $(WASM_DIR) && LRO_CHROMIUM=$(BROWSER_CHROMIUM) node bench/bench_playground.mjs

.PHONY: setup-browser test-browser playground bench-playground
