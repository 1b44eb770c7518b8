# WebAssembly: the wasm-bindgen package (bindings-wasm/js) and the WASI P2 component
# (bindings-wasm/component), members of the root workspace built for their targets with
# Debian's rustc-web + rust-web-src + lld (-Zbuild-std): the rustup toolchain here has no wasm
# std. Their size-first settings are the root Cargo.toml's `wasm-js` and `wasm-component`
# profiles. bindings-wasm/README.md says what each artifact is and how it is tested.

WASM_DIR := bindings-wasm
# A target dir of their own: the Debian compiler and build-std never invalidate native builds.
# One per artifact inside it, so that `build-wasm` can run the two cargo builds side by side
# (one target dir is one cargo lock): each has long single-threaded stretches (the LTO link,
# wasm-opt) that the other fills. From cold, that takes several minutes off `make test`.
WASM_TARGET := $(CURDIR)/target/wasm
WASM_VENV := $(WASM_DIR)/.venv
WASM_APT := rustc-web cargo-web rust-web-src lld-22 wasi-libc
WASM_LD := /usr/lib/llvm-22/bin/wasm-ld
# The JS module (wasm32-unknown-unknown) is built with -C panic=immediate-abort and no panic
# locations: about 200 KB less, and nothing is lost, since on that target a panic message
# reaches no one. The component keeps its panic messages (WASI hosts print them on stderr).
WASM_CARGO := RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=$(WASM_LD) \
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -C panic=immediate-abort -Zlocation-detail=none" \
	CARGO_TARGET_WASM32_WASIP1_LINKER=$(WASM_LD) \
	CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C link-self-contained=no -L /usr/lib/wasm32-wasi" \
	/usr/bin/cargo
# std's `optimize_for_size`: a small merge sort and heap sort instead of driftsort and
# ipnsort, one instantiation of which per element type and comparison was most of 86 KB of
# the module; the same results (a stable sort stays stable), slower only on large sorts.
WASM_BUILD := build -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size
# The CLI must be the exact version of the crate in the lock file (the workspace's one lock).
WASM_BINDGEN_VERSION = $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/^version = "\(.*\)"$$/\1/p;}' Cargo.lock)
WASMTIME_PY_VERSION := 50.0.1
# npm's binaryen (pinned in package-lock.json), not Debian's: binaryen 108's wasm-opt turns
# wasm-bindgen's externref table into one JS cannot fill ("Table.set(): Argument 1 is invalid").
WASM_OPT := $(WASM_DIR)/node_modules/.bin/wasm-opt
# -Oz: both artifacts have size budgets; the features are those rustc 1.96 emits for wasm32.
# `--flatten --rereloop` first: binaryen rebuilds each function's control flow with its
# relooper, which -Oz then shrinks further than LLVM's shape (-12 KB on the module, -7 KB on
# the component, about 8 s more each; the component's speed is unchanged).
WASM_OPT_FLAGS := --flatten --rereloop -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
	--enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue
WASM_JS_RAW := $(WASM_TARGET)/js/wasm32-unknown-unknown/wasm-js/lro_wasm.wasm
WASM_JS_MODULE := $(WASM_DIR)/js/pkg/node/lro_wasm_bg.wasm
WASM_COMPONENT_RAW := $(WASM_TARGET)/component/wasm32-wasip1/wasm-component/lro_component.wasm
WASM_COMPONENT := $(WASM_DIR)/component/dist/lro.component.wasm

TEST_TARGETS += test-wasm
SETUP_TARGETS += setup-wasm

# Size budgets, in bytes. They began at 1.5 and 2 MiB (the core's offload, jq recipes and
# extraction) and grew with what every build must also do since (the shapes real tools return,
# structured queries, the Node addon's whole API, numbers that keep their digits, bounded
# extraction, the extract tool, result handles, tables given as JSON, per-tool rules), to
# 2,146,304 and 2,359,296 at their highest. Bytes won back since without changing an answer
# (std's optimize_for_size, aho-corasick and jiff's defaults out, one regex engine, jq's time
# messages, no whitespace DFA, option objects read once, TOML without serde, the regex
# crate's PikeVM without its meta engine, one float printer, one JSON reader, TOML tables as
# index maps, no B-trees of one use, binaryen's relooper before -Oz) brought the module to
# 1,703,562 bytes and the component to 1,950,753: the budgets are those with about 40 KB of
# room each.
# bindings-wasm/README.md says where the bytes are. A feature that needs more room first finds
# bytes to drop.
WASM_JS_BUDGET := 1744896
WASM_COMPONENT_BUDGET := 1990656

# `npm install`, not `npm ci`: jco's and rolldown's optional per-platform packages that this
# registry lacks are left out of the lock file, which `npm ci` rejects as out of sync (as for
# the Node addon); `npm install` still installs the locked versions.
setup-wasm: $(UV) ## Install the wasm toolchain (Debian packages, wasm-bindgen-cli, jco, wasmtime-py), reusing what is present
	@missing=""; for p in $(WASM_APT); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  apt-get install -y -qq --no-install-recommends $$missing \
	    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; }; \
	fi
	@v="$(WASM_BINDGEN_VERSION)"; test -n "$$v"; \
	if [ "$$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $$v" ]; then \
	  echo "installing wasm-bindgen-cli $$v (about 6 minutes)"; \
	  cargo install wasm-bindgen-cli --version "$$v" --locked \
	    || { echo "--locked failed (the registry mirror lacks a locked version); resolving afresh"; \
	         cargo install wasm-bindgen-cli --version "$$v"; }; \
	fi
	@test -d $(WASM_DIR)/node_modules/@bytecodealliance/jco -a -d $(WASM_DIR)/node_modules/@bytecodealliance/preview2-shim \
	  -a -x $(WASM_OPT) || (cd $(WASM_DIR) && npm install --no-audit --no-fund --loglevel=error)
	@$(call venv,$(WASM_VENV))
	@$(WASM_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("wasmtime") != "$(WASMTIME_PY_VERSION)")' 2>/dev/null \
	  || $(call pip,$(WASM_VENV)) "wasmtime==$(WASMTIME_PY_VERSION)"

build-wasm-js: setup-wasm ## Build the wasm-bindgen package into bindings-wasm/js/pkg (node and web targets)
	+CARGO_TARGET_DIR=$(WASM_TARGET)/js $(WASM_CARGO) $(WASM_BUILD) --profile wasm-js --target wasm32-unknown-unknown -p lro-wasm
	@# wasm-bindgen, then wasm-opt (about 90 s): only when cargo produced a new module since
	@# the last complete run (the stamp is written last).
	@if [ ! -f $(WASM_DIR)/js/pkg/.built ] || [ $(WASM_JS_RAW) -nt $(WASM_DIR)/js/pkg/.built ]; then \
	  echo "wasm-bindgen (node, web), wasm-opt $(WASM_OPT_FLAGS) -> $(WASM_DIR)/js/pkg"; \
	  rm -rf $(WASM_DIR)/js/pkg; \
	  for t in node web; do \
	    tgt=$$t; [ $$t = node ] && tgt=nodejs; \
	    wasm-bindgen --target $$tgt --remove-name-section --remove-producers-section \
	      --out-dir $(WASM_DIR)/js/pkg/$$t $(WASM_JS_RAW); \
	  done; \
	  web=$(WASM_DIR)/js/pkg/web/lro_wasm_bg.wasm; \
	  same=0; cmp -s $(WASM_JS_MODULE) $$web && same=1; \
	  $(WASM_OPT) $(WASM_OPT_FLAGS) -o $(WASM_JS_MODULE) $(WASM_JS_MODULE); \
	  if [ $$same = 1 ]; then cp $(WASM_JS_MODULE) $$web; else $(WASM_OPT) $(WASM_OPT_FLAGS) -o $$web $$web; fi; \
	  touch $(WASM_DIR)/js/pkg/.built; \
	fi
	@# One API: the package's types and MCP helpers are the Node addon's (js/share.mjs).
	node $(WASM_DIR)/js/share.mjs

build-wasm-component: setup-wasm ## Build the WASI P2 component (bindings-wasm/component/dist) and its jco transpilation
	+CARGO_TARGET_DIR=$(WASM_TARGET)/component $(WASM_CARGO) $(WASM_BUILD) --profile wasm-component --target wasm32-wasip1 -p lro-component
	@# wasm-opt (about 90 s), jco new, jco transpile: only when cargo produced a new module since
	@# the last complete run (the stamp is written last).
	@if [ ! -f $(WASM_DIR)/component/dist/.built ] || [ $(WASM_COMPONENT_RAW) -nt $(WASM_DIR)/component/dist/.built ]; then \
	  echo "wasm-opt $(WASM_OPT_FLAGS), jco new --wasi-reactor, jco transpile -> $(WASM_DIR)/component/dist"; \
	  rm -rf $(WASM_DIR)/component/dist && mkdir -p $(WASM_DIR)/component/dist; \
	  $(WASM_OPT) $(WASM_OPT_FLAGS) -o $(WASM_DIR)/component/dist/lro.module.wasm $(WASM_COMPONENT_RAW); \
	  (cd $(WASM_DIR) && npx --no-install jco new component/dist/lro.module.wasm --wasi-reactor -o component/dist/lro.component.wasm \
	    && npx --no-install jco transpile component/dist/lro.component.wasm --name lro -o component/dist/jco >/dev/null); \
	  touch $(WASM_DIR)/component/dist/.built; \
	fi

# The cargo lines are marked `+` so that cargo shares make's jobserver: the two builds then
# use two jobs between them, one core each, or both cores for whichever is not in a
# single-threaded stretch.
build-wasm: setup-wasm ## Build both WebAssembly artifacts (side by side; each one's output printed when it is done)
	@$(MAKE) --no-print-directory -j2 --output-sync=target build-wasm-js build-wasm-component

# The Node addon's test suite (bindings-node/__test__), unchanged, against the wasm-bindgen
# package: one API, one suite (lightningcss's TEST_WASM). NODE_PATH lets the package's copy
# of the MCP helpers find the SDK the suite's servers use, as one node_modules would.
test-node-wasm: build-wasm-js setup-node ## The Node addon's whole suite against the wasm-bindgen package (LRO_TEST_WASM=1)
	cd $(NODE_DIR) && LRO_TEST_WASM=1 NODE_PATH=$(CURDIR)/$(NODE_DIR)/node_modules \
	  node --test --test-timeout=300000 --test-reporter=dot __test__/*.test.mjs

test-wasm: build-wasm setup-node ## Wasm parity: the Node suite on the wasm-bindgen package, the vectors on the component (jco, wasmtime-py); size budgets
	@# All runs and the size check always run; the target fails if any of them failed.
	@status=0; \
	echo "== the Node addon's suite against the wasm-bindgen package"; \
	$(MAKE) --no-print-directory test-node-wasm || status=1; \
	echo "== the wasm-bindgen package's web build under Node, and JS hosts"; \
	(cd $(WASM_DIR) && node --test --test-timeout=300000 --test-reporter=dot tests/api.test.mjs) || status=1; \
	echo "== component under jco transpile + Node"; \
	(cd $(WASM_DIR) && node --test --test-timeout=300000 --test-reporter=dot tests/vectors.test.mjs) || status=1; \
	echo "== component under wasmtime-py"; \
	timeout 900 $(WASM_VENV)/bin/python $(WASM_DIR)/tests/vectors_wasmtime.py $(WASM_COMPONENT) || status=1; \
	echo "== component imports (standard WASI P2 only)"; \
	imports=$$(cd $(WASM_DIR) && npx --no-install jco wit component/dist/lro.component.wasm 2>/dev/null | sed -n 's/^ *import \(.*\);$$/\1/p'); \
	echo $$imports; \
	if [ -z "$$imports" ] || echo "$$imports" | grep -v '^wasi:'; then echo "the component imports something other than WASI P2"; status=1; fi; \
	js=$$(stat -c %s $(WASM_JS_MODULE)); comp=$$(stat -c %s $(WASM_COMPONENT)); \
	echo "sizes: wasm-bindgen module $$js bytes (budget $(WASM_JS_BUDGET)), component $$comp bytes (budget $(WASM_COMPONENT_BUDGET))"; \
	test $$js -le $(WASM_JS_BUDGET) || { echo "wasm-bindgen module over budget"; status=1; }; \
	test $$comp -le $(WASM_COMPONENT_BUDGET) || { echo "component over budget"; status=1; }; \
	exit $$status

bench-wasm: build-wasm-component ## Offload of 200 memories: component under wasmtime-py vs native
	$(WASM_VENV)/bin/python $(WASM_DIR)/bench/bench_component.py $(WASM_COMPONENT)

# The module as shipped (wasm-bindgen, wasm-opt's passes), its function names kept: what
# bench/bytes.py reads to list the bytes by crate and the largest functions. `-g` keeps the
# names through wasm-opt; the code is what -Oz makes of it, within a few bytes.
WASM_BYTES_DIR := $(WASM_TARGET)/bytes
bytes-wasm: build-wasm-js ## Where the wasm-bindgen module's bytes are: by crate, data, the largest functions (BYTES_ARGS="--crate toml")
	rm -rf $(WASM_BYTES_DIR)
	wasm-bindgen --target nodejs --keep-debug --out-dir $(WASM_BYTES_DIR) $(WASM_JS_RAW)
	$(WASM_OPT) $(WASM_OPT_FLAGS:--strip-debug=--strip-dwarf) -g -o $(WASM_BYTES_DIR)/named.wasm $(WASM_BYTES_DIR)/lro_wasm_bg.wasm
	python3 $(WASM_DIR)/bench/bytes.py $(WASM_BYTES_DIR)/named.wasm $(BYTES_ARGS)

.PHONY: setup-wasm build-wasm-js build-wasm-component build-wasm test-node-wasm test-wasm bench-wasm bytes-wasm
