#!/usr/bin/env bash
# Debian packages the platform needs beyond Python: Java for Spark (the JDK, as the engine compiles
# its JVM functions), the JDBC drivers Spark loads through spark.jars, and GNU gettext to compile
# the translations. Installed only when
# missing, and only when we are root.
set -euo pipefail

need=()
[ -f /usr/share/java/postgresql.jar ] || need+=(libpostgresql-jdbc-java)
[ -f /usr/share/java/mariadb-java-client.jar ] || need+=(libmariadb-java)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)  # javac: scripts/build-jvm.sh
command -v msgfmt >/dev/null || need+=(gettext)  # the translations: scripts/build-messages.sh
# Test tools: docker-compose validates docker-compose.yml (no engine needed); the browser tests
# drive Debian's Chromium through Playwright (no browser download).
if [ "${DQ_TEST_TOOLS:-0}" = 1 ]; then
  command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || need+=(docker-compose)
  [ -x /usr/bin/chromium ] || need+=(chromium)
  # A Chinese font, so the browser tests' screenshots of the Chinese interface show characters.
  [ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need+=(fonts-wqy-microhei)
fi

if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "Missing system packages: ${need[*]}. Install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "Installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
