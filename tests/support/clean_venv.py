"""A virtualenv made from requirements.txt alone, as a production install has it
(the dev requirements used to hide a missing package). Kept under var/prod-venv/, keyed on
the requirements' hash and the Python version, so later local runs reuse it; a clean clone (CI)
builds it once. pip's wheel cache makes a rebuild take a minute or two rather than many."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements.txt"


def clean_venv() -> Path:
    key = hashlib.sha256(REQUIREMENTS.read_bytes() + sys.version.encode()).hexdigest()[:16]
    base = ROOT / "var" / "prod-venv"
    base.mkdir(parents=True, exist_ok=True)
    venv = base / key
    with (base / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs in one checkout build it once
        if (venv / ".complete").exists():
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        for old in base.iterdir():  # venvs of earlier requirements: 1 GB each
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        install = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
        result = subprocess.run([*install, "-r", str(REQUIREMENTS)], capture_output=True, text=True, timeout=1800)
        if result.returncode != 0:
            raise AssertionError(
                f"pip install -r requirements.txt failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
            )
        (venv / ".complete").write_text(REQUIREMENTS.read_text())
        return venv
