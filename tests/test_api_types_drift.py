"""The SPA's generated API types (frontend/src/api/schema.d.ts) are the ones the API describes
today: a serializer change without re-running scripts/api-types.sh fails here, before the SPA
compiles against types the server no longer sends."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "frontend"
COMMITTED = FRONTEND / "src" / "api" / "schema.d.ts"
STALE = "frontend/src/api/schema.d.ts is out of date: run scripts/api-types.sh"


def _generate(tmp_path: Path) -> str:
    # The same two steps as scripts/api-types.sh, the schema in this process (Django is loaded).
    schema = tmp_path / "schema.yaml"
    call_command("spectacular", file=str(schema), verbosity=0)
    out = tmp_path / "schema.d.ts"
    npx = shutil.which("npx")
    assert npx, "npx (Node.js) is needed to generate the API types"
    done = subprocess.run(
        [npx, "--no-install", "openapi-typescript", str(schema), "--output", str(out)],
        cwd=FRONTEND,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"openapi-typescript failed:\n{done.stdout}\n{done.stderr}"
    return out.read_text()


def test_the_committed_api_types_match_the_schema_the_api_describes(tmp_path):
    assert COMMITTED.exists(), STALE
    fresh = _generate(tmp_path)
    committed = COMMITTED.read_text()
    if fresh != committed:
        diff = "".join(
            list(
                difflib.unified_diff(
                    committed.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    "committed schema.d.ts",
                    "schema.d.ts from the API now",
                    n=1,
                )
            )[:60]
        )
        raise AssertionError(f"{STALE}\n{diff}")


def test_the_generated_types_name_the_resources_the_spa_reads():
    # A generation that lost its components (an empty or broken schema) is not "in date".
    text = COMMITTED.read_text()
    for name in ("Check", "Run", "Result", "Incident", "Batch", "Datasource"):
        assert f"        {name}: {{" in text, name
