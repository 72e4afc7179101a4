#!/usr/bin/env bash
# Runs every test. Tests keep their own state under var/test so a developer's var/ is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
export DQ_VAR_DIR=${DQ_VAR_DIR:-$PWD/var/test}
export PYSPARK_PYTHON=${PYSPARK_PYTHON:-$PWD/.venv/bin/python}
mkdir -p "$DQ_VAR_DIR" test-artifacts
exec .venv/bin/pytest "$@"
