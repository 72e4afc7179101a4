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
