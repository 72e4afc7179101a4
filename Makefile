# `make run` sets up and serves the platform on the embedded default; `make test` runs every test.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: run test test-fast lint bench bench-e2e bench-load bench-anomaly setup setup-dev system-deps services frontend jvm messages clean

run: setup system-deps jvm frontend messages
	@scripts/run.sh

test: setup-dev services
	@DQ_TEST_TOOLS=1 scripts/system-deps.sh
	@scripts/build-jvm.sh
	@scripts/build-frontend.sh
	@scripts/build-messages.sh
	@scripts/test.sh $(ARGS)

# The inner loop: every test but Spark's, the browser's and the clean install (minutes, not half
# an hour). `make test` still runs everything; CI runs `make test`.
test-fast: setup-dev services system-deps messages
	@DQ_SKIP_VITEST=1 scripts/test.sh -m "not spark and not browser and not clean_install" $(ARGS)

# The engine benchmark (bench/README.md); size with BENCH_ROWS, e.g. BENCH_ROWS=10000000 make bench.
bench: setup system-deps jvm
	@BENCH_ROWS=$${BENCH_ROWS:-5000000} $(PY) -m bench.run

# POST /runs/ → finished, 14 checks on a 20,000-row file source, warm embedded worker (bench/README.md).
bench-e2e: setup
	@$(PY) -m bench.e2e

# 100 clients on each list endpoint of a make-run-like platform (fresh var dir, own port, loopback):
# throughput as a share of /healthz's and POST /runs/'s wait under load (bench/README.md).
bench-load: setup
	@$(PY) -m bench.load

# Anomaly detection against the plain z-score on seeded generated series: precision and recall of
# each (pure Python, seconds; bench/README.md).
bench-anomaly: setup
	@$(PY) -m bench.anomaly

lint: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

setup: $(VENV)/.installed
setup-dev: $(VENV)/.installed-dev

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(VENV)/bin/python
	$(PIP) install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PIP) install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(VENV)/.installed $@

system-deps:
	@scripts/system-deps.sh

services:
	@scripts/services.sh

# The engine's JVM functions (dq_engine/jvm/): javac against pyspark's jars, skipped when up to date.
jvm: setup system-deps
	@scripts/build-jvm.sh

# The server's translations: .po → .mo (GNU gettext), skipped when up to date.
messages: system-deps
	@scripts/build-messages.sh

# The browser app: npm ci + vite build into frontend/dist, each skipped when up to date.
frontend:
	@scripts/build-frontend.sh

clean:
	rm -rf var/ test-artifacts/ frontend/dist/ dq_engine/jvm/build/
	find . -path ./.venv -prune -o -name '*.mo' -path '*/locale/*' -print -delete
