"""Nothing a user reads is left untranslated: every server message has its Chinese translation,
both browser catalogues hold the same keys, and no component shows literal text
(scripts/check_translations.py says how each is checked)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "check_translations", Path(__file__).resolve().parent.parent / "scripts" / "check_translations.py"
)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def test_every_server_message_has_a_chinese_translation():
    problems = check.server_problems()
    assert not problems, "\n".join(problems)


def test_every_browser_string_is_in_both_languages_and_no_component_shows_literal_text():
    problems = check.browser_problems()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:200])


def test_the_check_finds_literal_text_and_a_missing_translation(tmp_path, monkeypatch):
    """The check itself can fail: a component with literal text and a key in one language only."""
    src = tmp_path / "src"
    (src / "locales" / "en").mkdir(parents=True)
    (src / "locales" / "zh-CN").mkdir(parents=True)
    (src / "locales" / "en" / "demo.json").write_text('{"title": "Checks", "only": "English only", "same": "Run now"}')
    (src / "locales" / "zh-CN" / "demo.json").write_text('{"title": "检查", "same": "Run now"}')
    (src / "Page.vue").write_text(
        "<script setup lang=\"ts\">\nconst { t } = useI18n()\nElMessage.success('Saved.')\n</script>\n"
        "<template>\n  <h1>{{ t('demo.title') }}</h1>\n  <el-button title=\"Run it now\">Delete</el-button>\n"
        "  <p>{{ t('demo.gone') }}</p>\n  <code>SELECT 1</code>\n</template>\n"
    )
    monkeypatch.setattr(check, "FRONTEND_SRC", src)
    monkeypatch.setattr(check, "LOCALES", src / "locales")
    monkeypatch.setattr(check, "ROOT", tmp_path)
    problems = "\n".join(check.browser_problems())
    assert "missing 'demo.only'" in problems
    assert "'demo.same' is still English" in problems
    assert "t('demo.gone') is in no catalogue" in problems
    assert 'title="Run it now"' in problems and "literal text 'Delete'" in problems
    assert "message box shows a literal string" in problems
    assert "SELECT" not in problems
