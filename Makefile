# `make run` sets up and serves the platform on the embedded default; `make test` runs every test.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: run test lint setup setup-dev system-deps services clean

run: setup system-deps
	@scripts/run.sh

test: setup-dev services
	@DQ_TEST_TOOLS=1 scripts/system-deps.sh
	@scripts/test.sh $(ARGS)

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

clean:
	rm -rf var/ test-artifacts/
