from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

USERNAME = "admin"


def credentials_path() -> Path:
    return Path(settings.VAR_DIR) / "admin-credentials.txt"


def _shown(path: Path) -> str:
    """The path as a person would type it from the working directory (usually var/...)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _write_private(path: Path, text: str) -> None:
    # Created 0600 from the start, so the password is never readable by others, even briefly.
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)


def _saved_credentials(path: Path) -> tuple[str, str] | None:
    try:
        username, password = path.read_text().split()
    except (OSError, ValueError):
        return None
    return username, password


class Command(BaseCommand):
    help = (
        "Create the first superuser, `admin`, with a random password saved in VAR_DIR/admin-credentials.txt; "
        "when a superuser exists, print the saved login if it still works. Idempotent."
    )

    def handle(self, *args, **options) -> None:
        user_model = get_user_model()
        superuser = user_model.objects.filter(is_superuser=True).order_by("pk").first()
        if superuser is None:
            self._create(user_model)
            return
        path = credentials_path()
        saved = _saved_credentials(path)
        if saved and self._still_works(user_model, *saved):
            self._print_login(saved[0], saved[1], path)
            return
        name = superuser.get_username()
        self.stdout.write(
            f"Admin user exists: {name} (password unchanged; reset with `python manage.py changepassword {name}`)"
        )

    def _create(self, user_model) -> None:
        if user_model.objects.filter(**{user_model.USERNAME_FIELD: USERNAME}).exists():
            raise CommandError(
                f"A user named {USERNAME!r} exists but is not a superuser; "
                "make a superuser with `python manage.py createsuperuser`."
            )
        password = secrets.token_urlsafe(12)
        path = credentials_path()
        # In one transaction with the file: a failed write leaves no superuser whose password is lost.
        with transaction.atomic():
            user_model.objects.create_superuser(USERNAME, email="", password=password)
            _write_private(path, f"{USERNAME} {password}\n")
        self._print_login(USERNAME, password, path)

    @staticmethod
    def _still_works(user_model, username: str, password: str) -> bool:
        user = user_model.objects.filter(**{user_model.USERNAME_FIELD: username}, is_superuser=True).first()
        return user is not None and user.is_active and user.check_password(password)

    def _print_login(self, username: str, password: str, path: Path) -> None:
        self.stdout.write(f"Admin login: {username} / {password}  (saved in {_shown(path)})")
