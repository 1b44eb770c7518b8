# Object storage: host-s3, the core's Host over S3-compatible stores. Its tests run
# against moto's S3 server on loopback (PyPI `moto[server]`, in a venv made here), started on a
# port the OS picks by host-s3/tests/e2e/with_moto.py, which exports the standard AWS_*
# environment for the command it runs: the Rust tests, then the end-to-end tests (the `lro`
# CLI and proxy, the Python wheel and the Node addon as replicas, boto3 to check the objects).

S3_E2E := host-s3/tests/e2e
S3_VENV := $(S3_E2E)/.venv
S3_PY := $(S3_VENV)/bin/python
S3_STAMP := $(S3_VENV)/.installed
S3_WITH_MOTO = $(S3_PY) $(S3_E2E)/with_moto.py --

TEST_TARGETS += test-s3
SETUP_TARGETS += setup-s3

$(S3_STAMP): $(S3_E2E)/requirements.txt | $(UV)
	$(call venv,$(S3_VENV))
	$(call pip,$(S3_VENV)) -r $<
	touch $@

setup-s3: $(S3_STAMP) ## Create host-s3/tests/e2e/.venv with moto's S3 server, boto3, the AWS CLI, mcp, pytest (once)

test-s3: setup-s3 build-proxy build-python build-node ## Object store: host-s3 and the CLI, proxy, Python and Node replicas against moto's S3 server on loopback
	$(call pip,$(S3_VENV)) --reinstall --no-deps $(PY_WHEELS)/lro-*.whl
	$(S3_WITH_MOTO) $(CARGO) test -p lro-host-s3
	cd $(S3_E2E) && LRO_BIN=$(PROXY_LRO) .venv/bin/python with_moto.py -- .venv/bin/python -m pytest -q -p no:cacheprovider

bench-s3: setup-s3 ## Offload (200 full memories) and recipe 6 (100,000) on moto's loopback S3 vs local disk, in figures
	$(S3_WITH_MOTO) $(CARGO) bench -p lro-host-s3

.PHONY: setup-s3 test-s3 bench-s3
