#!/usr/bin/env bash
# Compiles the server's translations (every <app>/locale/*/LC_MESSAGES/django.po, and locale/ for
# project-level messages) into the .mo files Django reads; a .po older than its .mo is skipped.
# msgfmt --check-format refuses a translation whose placeholders differ from the English.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v msgfmt >/dev/null; then
  echo "msgfmt (GNU gettext) is needed to compile the translations; run scripts/system-deps.sh as root or: sudo apt-get install -y gettext" >&2
  exit 1
fi
find . -path ./.venv -prune -o -path ./frontend -prune -o -path ./var -prune -o \
  -path '*/locale/*/LC_MESSAGES/*.po' -print | while read -r po; do
  mo="${po%.po}.mo"
  if [ ! -f "$mo" ] || [ "$po" -nt "$mo" ]; then
    msgfmt --check-format -o "$mo" "$po"
  fi
done
