"""Is anything left untranslated? Every user-facing string must exist in English and Chinese.

The server: `makemessages` is run over a copy of the sources; every message it finds must already
have a Chinese translation (not empty, not fuzzy) in the committed .po files.

The browser app:
- `src/locales/en/<area>.json` and `src/locales/zh-CN/<area>.json` hold the same keys, the same
  `{placeholders}`, and no Chinese text that is still the English one;
- every key the code asks for (`t('area.key')`, `translate('area.key')`) exists;
- no component shows literal text: template text and user-facing attributes (label, placeholder,
  title, …) go through `t()`, and so do the messages of ElMessage / ElMessageBox / ElNotification.

`python scripts/check_translations.py [--server] [--browser]` prints each problem and exits 1 when
there is one; tests/test_translations.py runs it in `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONTEND_SRC = ROOT / "frontend" / "src"
LOCALES = FRONTEND_SRC / "locales"
ENGLISH, CHINESE = "en", "zh-CN"

# Names that stay as they are in a Chinese interface: products, formats, protocols, units. Text made
# only of these (and digits, punctuation) is not "literal text"; a Chinese message may equal its
# English one when it is made only of these.
UNTRANSLATED_WORDS = {
    "SQL",
    "YAML",
    "JSON",
    "CSV",
    "ID",
    "IDs",
    "URL",
    "API",
    "HTTP",
    "HTTPS",
    "SMTP",
    "UTC",
    "PNG",
    "DuckDB",
    "Spark",
    "PostgreSQL",
    "MariaDB",
    "MySQL",
    "SQLite",
    "Parquet",
    "ORC",
    "Hive",
    "JDBC",
    "DolphinScheduler",
    "Airflow",
    "Dagster",
    "OpenLineage",
    "Slack",
    "DingTalk",
    "WeCom",
    "Feishu",
    "Telegram",
    "Apprise",
    "Webhook",
    "webhook",
    "cron",
    "Cron",
    "OK",
    "KB",
    "MB",
    "GB",
    "ms",
    "s",
    "min",
    "h",
    "d",
    "n",
    "v",
    "x",
    "p50",
    "p95",
    "p99",
    "σ",
    "MAD",
    "HLL",
    "KLL",
    "Token",
    "token",
    "check.yaml",
    "contract.yaml",
    "English",
    "GitHub",
    "e.g.",
}
# Attributes whose static value a user reads.
USER_FACING_ATTRIBUTES = {
    "label",
    "placeholder",
    "title",
    "aria-label",
    "alt",
    "content",
    "description",
    "confirm-button-text",
    "cancel-button-text",
    "empty-text",
    "active-text",
    "inactive-text",
    "text",
    "header",
    "sub-title",
    "no-data-text",
    "no-match-text",
    "loading-text",
    "start-placeholder",
    "end-placeholder",
    "range-separator",
    "message",
    "confirm-text",
    "cancel-text",
    "tooltip",
    "heading",
    "hint",
    "caption",
    "empty-description",
    "next-text",
    "prev-text",
}
TEXT_ELEMENTS_KEPT_LITERAL = ("code", "pre", "kbd", "samp")
KEY_CALL = re.compile(r"""(?<![\w.])(?:t|\$t|translate|i18n\.global\.t)\(\s*(['"])([\w.-]+)\1""")
MESSAGE_CALL = re.compile(r"""\b(?:ElMessage(?:\.\w+)?|ElMessageBox\.\w+|ElNotification(?:\.\w+)?)\(\s*(['"`])""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
LETTERS = re.compile(r"[A-Za-z]")


# --- the server --------------------------------------------------------------------------------


def server_problems() -> list[str]:
    problems: list[str] = []
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    with tempfile.TemporaryDirectory(prefix="dq-messages-") as tmp:
        copy = Path(tmp) / "src"
        for name in files:
            if not name or name.startswith(("frontend/", "docs/", "bench/")) or name.endswith((".mo",)):
                continue
            source = ROOT / name
            if not source.is_file() or not name.endswith((".py", ".html", ".txt", ".po")):
                continue
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        (copy / "locale").mkdir(exist_ok=True)  # LOCALE_PATHS: messages outside any app's locale/
        env = {**os.environ, "DQ_VAR_DIR": str(Path(tmp) / "var"), "DJANGO_SETTINGS_MODULE": "dq_platform.settings"}
        run = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "makemessages",
                "-l",
                "zh_Hans",
                "--no-obsolete",
                "--no-location",
                "--ignore=*/tests/*",
                "--ignore=tests/*",
                "--ignore=conftest.py",
                "--ignore=scripts/*",
            ],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode:
            return [f"makemessages failed: {run.stderr.strip() or run.stdout.strip()}"]
        for po in sorted(copy.rglob("locale/zh_Hans/LC_MESSAGES/django.po")):
            where = po.relative_to(copy)
            for flag, what in (("--untranslated", "no Chinese translation"), ("--only-fuzzy", "a fuzzy translation")):
                out = subprocess.run(
                    ["msgattrib", flag, "--no-wrap", str(po)], capture_output=True, text=True, check=True
                ).stdout
                for msgid in _msgids(out):
                    problems.append(f"{where}: {msgid!r} has {what}")
    return problems


def _msgids(po_text: str) -> list[str]:
    """The msgids of a .po text (the header's empty one left out)."""
    ids, current, reading = [], [], False
    for line in po_text.splitlines():
        if line.startswith("msgid "):
            current, reading = [json.loads(line[6:])], True
        elif reading and line.startswith('"'):
            current.append(json.loads(line))
        else:
            if reading and "".join(current):
                ids.append("".join(current))
            reading = False
    if reading and "".join(current):
        ids.append("".join(current))
    return ids


# --- the browser app ---------------------------------------------------------------------------


def flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, path))
        else:
            flat[path] = value
    return flat


def catalogue(locale: str) -> tuple[dict[str, str], list[str]]:
    flat, problems = {}, []
    for path in sorted((LOCALES / locale).glob("*.json")):
        try:
            tree = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.relative_to(ROOT)}: not JSON ({exc})")
            continue
        flat.update(flatten(tree, path.stem))
    return flat, problems


def only_untranslatable(text: str) -> bool:
    words = re.findall(r"[A-Za-z][\w.+-]*", text)
    return all(word.rstrip(".") in UNTRANSLATED_WORDS or word in UNTRANSLATED_WORDS for word in words)


def catalogue_problems() -> tuple[list[str], dict[str, str]]:
    english, problems = catalogue(ENGLISH)
    chinese, more = catalogue(CHINESE)
    problems += more
    for key in sorted(set(english) - set(chinese)):
        problems.append(f"locales/{CHINESE}: missing {key!r} (English: {english[key]!r})")
    for key in sorted(set(chinese) - set(english)):
        problems.append(f"locales/{ENGLISH}: missing {key!r} (Chinese: {chinese[key]!r})")
    for key in sorted(set(english) & set(chinese)):
        en, zh = english[key], chinese[key]
        if not isinstance(en, str) or not isinstance(zh, str) or not zh.strip():
            problems.append(f"{key!r}: every message must be a non-empty string in both languages")
            continue
        if set(PLACEHOLDER.findall(en)) != set(PLACEHOLDER.findall(zh)):
            problems.append(f"{key!r}: placeholders differ: {en!r} / {zh!r}")
        if zh == en and LETTERS.search(en) and not only_untranslatable(en):
            problems.append(f"locales/{CHINESE} {key!r} is still English: {zh!r}")
    return problems, english


def source_files() -> list[Path]:
    return sorted(p for p in FRONTEND_SRC.rglob("*") if p.suffix in {".vue", ".ts"} and p.name != "schema.d.ts")


def key_problems(english: dict[str, str]) -> list[str]:
    problems = []
    for path in source_files():
        for match in KEY_CALL.finditer(path.read_text(encoding="utf-8")):
            key = match.group(2)
            if key not in english and "." in key:
                problems.append(f"{path.relative_to(ROOT)}: t({key!r}) is in no catalogue")
    return problems


def template_of(vue: str) -> str:
    start = vue.find("<template")
    end = vue.rfind("</template>")
    return vue[start:end] if start >= 0 and end > start else ""


def tags_and_text(template: str):
    """Yields ('tag', name, attributes-text) and ('text', content) in order, quotes respected."""
    i, n = 0, len(template)
    while i < n:
        if template.startswith("<!--", i):
            end = template.find("-->", i)
            i = n if end < 0 else end + 3
            continue
        if template[i] == "<":
            j, quote = i + 1, None
            while j < n and (quote or template[j] != ">"):
                if quote and template[j] == quote:
                    quote = None
                elif not quote and template[j] in "\"'":
                    quote = template[j]
                j += 1
            inner = template[i + 1 : j]
            name = re.match(r"/?[\w.:-]*", inner).group(0)
            yield ("tag", name, inner[len(name) :])
            i = j + 1
            continue
        j = template.find("<", i)
        j = n if j < 0 else j
        yield ("text", template[i:j])
        i = j


ATTRIBUTE = re.compile(r"""([:@#]?[\w.:-]+)(?:\s*=\s*("[^"]*"|'[^']*'))?""")


def literal_text_problems() -> list[str]:
    problems = []
    for path in sorted(FRONTEND_SRC.rglob("*.vue")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        kept_open = 0
        for item in tags_and_text(template_of(source)):
            if item[0] == "tag":
                name, attributes = item[1], item[2]
                bare = name.lstrip("/")
                if bare in TEXT_ELEMENTS_KEPT_LITERAL:
                    kept_open += -1 if name.startswith("/") else 1
                for attribute, value in ATTRIBUTE.findall(attributes):
                    if not value:
                        continue
                    text = value[1:-1]
                    if attribute in USER_FACING_ATTRIBUTES and LETTERS.search(text) and not only_untranslatable(text):
                        problems.append(f"{where}: <{bare} {attribute}={value}> is literal text")
                    bound = attribute.startswith(":") or attribute.startswith("v-bind:")
                    if bound and attribute.lstrip(":").removeprefix("v-bind:") in USER_FACING_ATTRIBUTES:
                        for literal in re.findall(r"'([^']*)'|`([^`$]*)`", text):
                            words = literal[0] or literal[1]
                            if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]", words) or (
                                re.match(r"[A-Z][a-z]", words) and not only_untranslatable(words)
                            ):
                                problems.append(f"{where}: {attribute}= holds literal text {words!r}")
                continue
            text = re.sub(r"\{\{.*?\}\}", " ", item[1], flags=re.S)
            if kept_open or not LETTERS.search(text):
                continue
            if not only_untranslatable(text.strip()):
                problems.append(f"{where}: literal text {' '.join(text.split())!r}")
        script = source[: source.find("<template")] + source[source.rfind("</template>") :]
        for match in MESSAGE_CALL.finditer(script):
            line = script[: match.start()].count("\n") + 1
            problems.append(f"{where}: a message box shows a literal string (script line {line})")
        problems += sentence_problems(where, script)
    for path in source_files():
        if path.suffix == ".ts":
            problems += sentence_problems(path.relative_to(ROOT), path.read_text(encoding="utf-8"))
    return problems


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`""")
# A sentence or a label: a capital, then a lower-case letter, then words ("Run failed", "Not found: …").
SENTENCE = re.compile(r"^[A-Z][a-z]+(?:[ ,:;’'-]+[A-Za-z(][\w)’'.-]*)+[.!?:…]?$")


def sentence_problems(where, script: str) -> list[str]:
    """Literal English sentences in code (labels built in script, messages thrown to the user)."""
    problems = []
    code = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), script)
    for match in STRING.finditer(code):
        text = next(group for group in match.groups() if group is not None)
        text = re.sub(r"\$\{[^}]*\}", "x", text).strip()
        if SENTENCE.match(text) and not only_untranslatable(text):
            line = code[: match.start()].count("\n") + 1
            problems.append(f"{where}:{line}: literal text {text!r}")
    return problems


def browser_problems() -> list[str]:
    problems, english = catalogue_problems()
    return problems + key_problems(english) + literal_text_problems()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", action="store_true", help="Only the server's messages.")
    parser.add_argument("--browser", action="store_true", help="Only the browser app's.")
    options = parser.parse_args()
    both = not (options.server or options.browser)
    problems = (server_problems() if options.server or both else []) + (
        browser_problems() if options.browser or both else []
    )
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} untranslated string(s).", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
