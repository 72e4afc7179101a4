#!/usr/bin/env bash
# Builds the browser app (frontend/) into frontend/dist, which Django serves as static files.
# `npm ci` runs only when package-lock.json changed since the last install, `vite build` only
# when a source is newer than the last build, so a second `make run` / `make test` skips both.
set -euo pipefail
cd "$(dirname "$0")/../frontend"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "Node.js 20.19+ and npm are needed to build the browser app (frontend/); install them, then retry." >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "Node.js $(node --version) is too old to build the browser app; Vite 8 needs 20.19 or newer." >&2
  exit 1
fi

if [ -L node_modules ]; then
  :  # a checkout sharing another's packages (a symlink): `npm ci` would empty the shared folder
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing the browser app's packages (npm ci)..."
  npm ci --no-audit --no-fund --loglevel=error
fi

manifest=dist/spa-manifest.json
if [ -f "$manifest" ] && [ -z "$(find src public index.html package-lock.json vite.config.ts tsconfig.json -newer "$manifest" -print -quit)" ]; then
  exit 0  # up to date
fi
echo "Building the browser app (vite build)..."
npx --no-install vite build --logLevel warn
