# Shipping: `make dist` writes the artifacts a registry would serve to dist/
# (packaging/build_dist.py says what and how), `make test-dist` installs each one on a PATH
# without cargo, rustc, maturin or a C compiler and runs examples/ against them.

DIST_VENV := $(CURDIR)/target/dist-venv
# maturin and cargo-zigbuild link with zig for glibc 2.17; auditwheel checks the wheel's tag.
DIST_TOOLS := maturin==1.16.0 ziglang==0.15.2 cargo-zigbuild==0.24.1 auditwheel==6.4.2

$(DIST_VENV)/.installed: mk/dist.mk | $(UV)
	$(call venv,$(DIST_VENV))
	$(call pip,$(DIST_VENV)) $(DIST_TOOLS)
	touch $@

setup-dist: $(DIST_VENV)/.installed setup-node build-wasm ## Install the packaging tools (maturin, zig, cargo-zigbuild, auditwheel) and build the wasm artifacts

dist: setup-dist ## Build every artifact into dist/: wheel + sdist, npm tarballs (addon, wasm), WASI component, lro binary
	WASM_OPT_FLAGS="$(WASM_OPT_FLAGS)" $(DIST_VENV)/bin/python packaging/build_dist.py

test-dist: dist ## Install the dist/ artifacts without a Rust toolchain or compiler, run examples/ against them
	python3 packaging/test_dist.py

.PHONY: setup-dist dist test-dist
