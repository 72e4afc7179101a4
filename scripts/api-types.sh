#!/usr/bin/env bash
# Writes the SPA's API types (frontend/src/api/schema.d.ts) from the API's OpenAPI description:
# drf-spectacular describes the serializers and views, openapi-typescript turns that into
# TypeScript. Needs no database or broker: the test settings with a throwaway var dir.
# Usage: scripts/api-types.sh [output .d.ts]   (tests/test_api_types_drift.py checks the committed file)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-frontend/src/api/schema.d.ts}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DQ_VAR_DIR="$tmp/var" DJANGO_SETTINGS_MODULE=dq_platform.settings_test \
  .venv/bin/python manage.py spectacular --file "$tmp/schema.yaml" 2>"$tmp/spectacular.log" \
  || { cat "$tmp/spectacular.log" >&2; exit 1; }
(cd frontend && npx --no-install openapi-typescript "$tmp/schema.yaml" --output "$out" >/dev/null)
echo "wrote $out"
