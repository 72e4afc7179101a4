#!/usr/bin/env bash
# A separate virtualenv with Apache Airflow (var/airflow-venv, or $1), for the tests that run
# clients/airflow_dq.py in real Airflow; never the platform's own .venv (Airflow pins its own
# versions of libraries the platform uses too). Made once, kept under var/: about a minute from
# PyPI on a clean machine. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-var/airflow-venv}
AIRFLOW_VERSION=${DQ_AIRFLOW_VERSION:-3.3.2}
if [ ! -f "$VENV/.installed-$AIRFLOW_VERSION" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "apache-airflow==$AIRFLOW_VERSION" >&2
  touch "$VENV/.installed-$AIRFLOW_VERSION"
fi
echo "$(cd "$VENV" && pwd)/bin/python"
