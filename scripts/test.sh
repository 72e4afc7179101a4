#!/usr/bin/env bash
# Runs every test. Tests keep their own state under var/test so a developer's var/ is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
export DQ_VAR_DIR=${DQ_VAR_DIR:-$PWD/var/test}
export PYSPARK_PYTHON=${PYSPARK_PYTHON:-$PWD/.venv/bin/python}
mkdir -p "$DQ_VAR_DIR" test-artifacts
# The browser app's type check and unit tests (Vitest) first, so that pytest's summary is the
# last line. DQ_SKIP_VITEST=1 skips them (e.g. when only re-running one pytest file).
if [ "${DQ_SKIP_VITEST:-0}" != 1 ]; then
  (cd frontend && npx --no-install vue-tsc --noEmit -p tsconfig.json && npx --no-install vitest run --reporter=dot)
fi
# The engine's JVM functions: every regex runs through them (skipped when the jar is up to date).
PY=.venv/bin/python scripts/build-jvm.sh
exec .venv/bin/pytest "$@"
