"""`manage.py dq_import_ds`: the API's import from a shell, with exit codes a scheduler can act on."""

from __future__ import annotations

import io
import json

import pytest

from imports.management.commands.dq_import_ds import Command
from rules.models import Check
from watching.models import Schedule

from .conftest import EXPORT_PATH, export_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _test_database_stays_open(monkeypatch):
    """manage.py closes the database connections when a command ends; the test's own stays open."""
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)


def _run(*argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the command as manage.py runs it."""
    out, err = io.StringIO(), io.StringIO()
    command = Command(stdout=out, stderr=err)
    try:
        command.run_from_argv(["manage.py", "dq_import_ds", *argv])
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue(), err.getvalue()


def test_the_command_imports_with_a_mapping_by_name_and_id_and_exits_0(cast, shop):
    warehouse, mirror = shop

    code, out, _err = _run(
        str(EXPORT_PATH),
        "--map",
        "1=warehouse",
        "--map",
        f"2={mirror.pk}",
        "--accept-partial",
        "--schedules",
        "--user",
        "author",
    )

    assert code == 0
    assert Check.objects.filter(owner=cast.author).count() == 11 and Schedule.objects.count() == 2
    created = Check.objects.get(name="orders email not null")
    assert f"imported: [1001] orders email not null (daily_orders_dq) as null_check → check {created.pk}" in out
    assert "skipped: [3002] unmapped source (legacy_checks): src_datasource_id: DolphinScheduler datasource 9" in out
    assert "ignored: 3 other tasks (SHELL 2, SQL 1)." in out
    assert "schedule of daily_orders_dq: 0 0 2 * * ? * → 0 2 * * * Asia/Shanghai: created" in out
    assert out.rstrip().endswith("Checks imported: 11, tasks skipped: 5, other tasks ignored: 3.")


def test_a_refused_import_exits_non_zero_with_the_reason_and_creates_nothing(cast, shop):
    warehouse, mirror = shop

    code, out, err = _run(str(EXPORT_PATH), "--map", "1=warehouse", "--map", "2=mirror", "--user", "author")

    assert code == 1
    assert "Nothing was imported: 5 data-quality tasks cannot be imported" in err
    assert "skipped: [3003] old year (legacy_checks): src_table: Table 'ds_import.orders_2019' does not exist" in out
    assert Check.objects.count() == 0


def test_a_dry_run_exits_0_and_creates_nothing(cast, shop, tmp_path):
    good = [w for w in export_data() if w["processDefinition"]["name"] != "legacy_checks"]
    path = tmp_path / "good.json"
    path.write_text(json.dumps(good))

    code, out, _err = _run(str(path), "--map", "1=warehouse", "--map", "2=mirror", "--dry-run", "--user", "author")

    assert code == 0 and "would import: [2006] orders have rows" in out
    assert out.rstrip().endswith(
        "Dry run: checks that would be imported: 10, tasks skipped: 0, other tasks ignored: 2."
    )
    assert Check.objects.count() == 0


def test_bad_arguments_exit_non_zero_with_a_message(cast, shop, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("[{")

    cases = {
        "missing file": _run(str(tmp_path / "nope.json"), "--map", "1=warehouse", "--user", "author"),
        "not json": _run(str(broken), "--map", "1=warehouse", "--user", "author"),
        "bad map": _run(str(EXPORT_PATH), "--map", "1", "--user", "author"),
        "unknown datasource": _run(str(EXPORT_PATH), "--map", "1=nowhere", "--user", "author"),
        "outsider": _run(str(EXPORT_PATH), "--map", "2=mirror", "--user", "outsider"),
        "unknown user": _run(str(EXPORT_PATH), "--map", "1=warehouse", "--user", "nobody"),
        "ds version": _run(str(EXPORT_PATH), "--ds-version", "9", "--user", "author"),
    }

    assert {name: code for name, (code, _o, _e) in cases.items()} == {
        "missing file": 1,
        "not json": 1,
        "bad map": 1,
        "unknown datasource": 1,
        "outsider": 1,
        "unknown user": 1,
        "ds version": 2,  # argparse's own exit code for a bad choice
    }
    assert "Cannot read" in cases["missing file"][2]
    assert "The file is not JSON" in cases["not json"][2]
    assert "--map '1': write DS_ID=DATASOURCE" in cases["bad map"][2]
    assert (
        "--map 1: Datasource 'nowhere' does not exist or you may not create checks on it."
        in cases["unknown datasource"][2]
    )
    assert "--map 2: Datasource 'mirror' does not exist" in cases["outsider"][2]
    assert "No active user named 'nobody'." in cases["unknown user"][2]
    assert Check.objects.count() == 0
