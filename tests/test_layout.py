"""The engine package stays free of Django and Celery, so spark-submit can run it alone."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_importing_dq_engine_pulls_in_no_django_or_celery_module():
    code = "import sys, dq_engine; print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'rest_framework')))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


PACKAGES = ("dq_platform", "accounts", "datasources", "rules", "executions", "watching", "dq_engine", "demo")


def _import_graph() -> dict[str, set[str]]:
    """Project module → project modules it imports (at any depth of the file, lazy imports too)."""
    import ast

    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "tests" in parts or "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets.add(base)
                targets.update(f"{base}.{alias.name}" for alias in node.names)
        # A submodule reading its own package (`from dq_engine import plan`) is not a cycle.
        graph[name] = {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}
    return graph


def test_no_project_module_imports_itself_back_through_others():
    graph = _import_graph()
    cycles = []

    def visit(node: str, path: list[str], seen: set[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt == path[0]:
                cycles.append(" → ".join([*path, nxt]))
            elif nxt not in seen and nxt > path[0]:  # each cycle reported once, from its smallest module
                seen.add(nxt)
                visit(nxt, [*path, nxt], seen)

    for start in sorted(graph):
        visit(start, [start], {start})
    assert cycles == []
