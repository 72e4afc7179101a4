#!/usr/bin/env bash
# Collects the server's messages into <app>/locale/zh_Hans/LC_MESSAGES/django.po, one file per app
# (messages outside an app go to locale/), keeping the translations already there. Then fill in the
# new `msgstr ""` entries (and remove `#, fuzzy` marks after checking them); scripts/build-messages.sh
# compiles them, scripts/check_translations.py --server says what is still missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
for app in $("$PY" - <<'PY'
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dq_platform.settings")
django.setup()
from django.apps import apps
from pathlib import Path
root = Path.cwd().resolve()
for config in apps.get_app_configs():
    path = Path(config.path).resolve()
    if path.is_relative_to(root) and ".venv" not in path.parts:
        print(path.relative_to(root))
PY
); do
  mkdir -p "$app/locale/zh_Hans/LC_MESSAGES"
done
mkdir -p locale/zh_Hans/LC_MESSAGES
"$PY" manage.py makemessages -l zh_Hans --no-obsolete --no-location \
  --ignore='*/tests/*' --ignore='tests/*' --ignore=conftest.py --ignore='scripts/*' \
  --ignore='.venv/*' --ignore='frontend/*' --ignore='var/*' --ignore='bench/*' --ignore='docs/*' "$@"
# A stable header: no creation date (it would change in every file on every run and make merges
# conflict), the language named, and not fuzzy (msgfmt would skip a fuzzy header).
find . \( -path ./.venv -o -path ./var -o -path ./frontend \) -prune -o -path '*/locale/zh_Hans/LC_MESSAGES/django.po' -print | while read -r po; do
  python3 - "$po" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
head, sep, rest = text.partition('\nmsgid ""\n')
head = head.replace("#, fuzzy", "").rstrip() + "\n"
head = "# Simplified Chinese messages of the data-quality platform.\n#\n"
body = re.sub(r'"POT-Creation-Date: [^"]*\\n"\n', "", sep + rest)
body = re.sub(r'"PO-Revision-Date: [^"]*\\n"\n', "", body)
body = body.replace('"Language: \\n"', '"Language: zh_Hans\\n"')
body = re.sub(r'"(Report-Msgid-Bugs-To|Last-Translator|Language-Team): [^"]*\\n"\n', "", body)
body = body.replace('"Project-Id-Version: PACKAGE VERSION\\n"', '"Project-Id-Version: dq-platform\\n"')
open(path, "w", encoding="utf-8").write(head + body.lstrip("\n"))
PY
done
