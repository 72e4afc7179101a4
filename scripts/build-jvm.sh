#!/usr/bin/env bash
# Builds the engine's JVM functions (dq_engine/jvm/src → dq_engine/jvm/build/dq-engine-functions.jar)
# against the jars of the installed pyspark. Skipped when the jar is newer than every source and
# than the pyspark install. Without the jar the engine still works (regexp checks use RLIKE).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
src=dq_engine/jvm/src
out=dq_engine/jvm/build/dq-engine-functions.jar

spark_jars=$("$PY" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
if [ -f "$out" ] && [ -z "$(find "$src" "$spark_jars" -newer "$out" -print -quit)" ]; then
  exit 0
fi
if ! command -v javac >/dev/null; then
  echo "javac is needed to build $out (Debian: apt-get install openjdk-17-jdk-headless)." >&2
  exit 1
fi
echo "Building $out ..."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t sources < <(find "$src" -name '*.java' | sort)
javac --release 17 -Xlint:-options -encoding UTF-8 -cp "$spark_jars/*" -d "$tmp/classes" "${sources[@]}"
mkdir -p "$(dirname "$out")"
jar --create --file "$tmp/functions.jar" -C "$tmp/classes" .
mv "$tmp/functions.jar" "$out"
