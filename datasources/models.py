"""Admin-managed connections to the data that checks read."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import crypto
from .connectors import default_port
from .connectors.base import ENGINE_OPTION
from .readable import readable_ids

AUTO = "auto"

REMOTE_SCHEMES = ("hdfs", "s3a")
OPTION_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,63}$")


class DatasourceQuerySet(models.QuerySet):
    """Two questions, kept apart on purpose:

    - `visible_to(user)`: which datasources may this user *use* now (pick in a form, browse, run)?
      Alive ones open to all or to one of the user's groups; admins: every alive one.
    - `readable_by(user)`: whose *data* may this user read, in runs, results, error rows and check
      versions that already exist? Deleted datasources included, decided by their groups, which a
      soft delete keeps: an open datasource stays readable after deletion, a restricted one stays
      restricted. Admins read all.

    Runs, results and check versions freeze the datasources they read and ask `readable_by`
    through `reading_only_readable` below, so moving a check, restricting or deleting a datasource
    never widens who reads earlier data.
    """

    def alive(self) -> DatasourceQuerySet:
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user) -> DatasourceQuerySet:
        return self.alive().readable_by(user)

    def readable_by(self, user) -> DatasourceQuerySet:
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        # Exists rather than a join on the groups: no duplicate rows, so no distinct(), which
        # would forbid select_for_update() and complicate counts.
        groups = Datasource.allowed_groups.through.objects.filter(datasource=OuterRef("pk"))
        return self.filter(~Exists(groups) | Exists(groups.filter(group__user=user)))

    def owned_by(self, user) -> DatasourceQuerySet:
        """Datasources whose batches and incidents `user` answers for: release and re-validate
        batches, acknowledge, resolve and mute incidents. Admins: every one (deleted ones too,
        to clean up after them); others: alive ones they may use, where they are one of the
        `owners` or in one of the `owner_groups` an admin set. Nobody else, however open the data."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        users = Datasource.owners.through.objects.filter(datasource=OuterRef("pk"), user=user)
        groups = Datasource.owner_groups.through.objects.filter(datasource=OuterRef("pk"), group__in=user.groups.all())
        return self.visible_to(user).filter(Exists(users) | Exists(groups))


def reading_only_readable(user, links: models.QuerySet, owner_field: str) -> Q:
    """A filter for rows (runs, check versions, checks) that read at least one datasource and only
    datasources `user` may read. `links` is the row → datasource link table, `owner_field` its
    foreign key to the row. A row with no datasource recorded (e.g. one whose datasource was
    removed before soft delete existed) fails closed: admins only, who never get here."""
    read = links.filter(**{owner_field: OuterRef("pk")})
    # The readable ids are fetched first (a handful of rows) rather than nested as a subquery:
    # every list page asks this, and a literal list is cheaper both to build and to run.
    readable = readable_ids(user, lambda: list(Datasource.objects.readable_by(user).values_list("pk", flat=True)))
    unreadable = read.exclude(datasource_id__in=readable)
    return Exists(read) & ~Exists(unreadable)


class Datasource(models.Model):
    class Type(models.TextChoices):
        POSTGRESQL = "postgresql", "PostgreSQL"
        MYSQL = "mysql", "MySQL / MariaDB"
        FILE = "file", gettext_lazy("Files (Parquet, CSV, JSON, ORC)")

    class FileFormat(models.TextChoices):
        PARQUET = "parquet", "Parquet"
        CSV = "csv", "CSV"
        JSON = "json", gettext_lazy("JSON (one object per line)")
        ORC = "orc", "ORC"

    SERVER_TYPES = (Type.POSTGRESQL, Type.MYSQL)

    name = models.CharField(
        max_length=100, help_text=gettext_lazy("A short name users pick in forms (unique among alive ones).")
    )
    type = models.CharField(max_length=20, choices=Type.choices)
    description = models.TextField(blank=True)
    host = models.CharField(max_length=255, blank=True)
    port = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=gettext_lazy("Leave empty for the type's usual port (PostgreSQL 5432, MySQL 3306)."),
    )
    database = models.CharField(max_length=255, blank=True)
    username = models.CharField(max_length=255, blank=True)
    # Fernet ciphertext; read and write through `.password`, never this column.
    password_ciphertext = models.TextField(blank=True, default="", editable=False)
    path = models.CharField(
        max_length=1000,
        blank=True,
        help_text=gettext_lazy("File sources: a directory under DQ_FILE_ROOTS, or an hdfs:// or s3a:// URI."),
    )
    format = models.CharField(max_length=10, choices=FileFormat.choices, blank=True)
    options = models.JSONField(
        default=dict,
        blank=True,
        help_text=gettext_lazy('Driver or reader options, e.g. {"sslmode": "require"} or {"delimiter": ";"}.'),
    )
    allowed_groups = models.ManyToManyField(
        Group,
        blank=True,
        related_name="datasources",
        help_text=gettext_lazy("Leave empty to let every signed-in user use it."),
    )
    # Who answers for the data (DatasourceQuerySet.owned_by): set by admins only.
    owners = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="owned_datasources",
        help_text=gettext_lazy(
            "Users who may release and re-validate its batches and acknowledge, resolve and mute its incidents."
        ),
    )
    owner_groups = models.ManyToManyField(
        Group,
        blank=True,
        related_name="owned_datasources",
        help_text=gettext_lazy(
            "Groups whose members may release and re-validate its batches and handle its incidents."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Soft delete: runs, results and check versions keep pointing at what they read, and the
    # groups kept here still decide who may read that data (DatasourceQuerySet.readable_by).
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = DatasourceQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["name"], condition=Q(deleted_at__isnull=True), name="unique_live_datasource_name"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.fill_default_port()  # however it is saved (admin, API, ORM): never a NULL port in a JDBC URL
        super().save(*args, **kwargs)

    def fill_default_port(self) -> None:
        if self.port is None and self.type in self.SERVER_TYPES:
            self.port = default_port(self.type)

    def soft_delete(self) -> None:
        """Hide it from use and free its name; keep the row and its groups for what already read it."""
        self.deleted_at = timezone.now()
        self.save(update_fields=["deleted_at", "updated_at"])

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    # --- secrets ---------------------------------------------------------------------------
    @property
    def password(self) -> str:
        return crypto.decrypt(self.password_ciphertext) if self.password_ciphertext else ""

    @password.setter
    def password(self, plaintext: str) -> None:
        self.password_ciphertext = crypto.encrypt(plaintext) if plaintext else ""

    @property
    def has_password(self) -> bool:
        return bool(self.password_ciphertext)

    # --- derived ---------------------------------------------------------------------------
    @property
    def is_remote_path(self) -> bool:
        return urlsplit(self.path).scheme in REMOTE_SCHEMES

    @property
    def location(self) -> str:
        """Where the data lives, for lists and messages (never includes a secret)."""
        if self.type == self.Type.FILE:
            return self.path
        return f"{self.host}:{self.port}/{self.database}"

    def validate_config(self) -> dict[str, list[str]]:
        """Field-level problems with this configuration; empty when it is usable.

        Used by the API serializer and the admin form, so both refuse the same things.
        """
        if self.type == self.Type.FILE:
            return self._file_problems()
        if self.type in self.SERVER_TYPES:
            return self._server_problems()
        return {
            "type": [
                _("Unknown type %(type)s; choose one of %(types)s.")
                % {"type": repr(self.type), "types": ", ".join(self.Type.values)}
            ]
        }

    def _server_problems(self) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}
        if not self.host.strip():
            problems["host"] = [_("A host name or IP address is required for a database server.")]
        elif not re.fullmatch(r"[A-Za-z0-9.\-:\[\]_]+", self.host):
            problems["host"] = [_("A host may contain only letters, digits, dots, dashes and colons.")]
        self.fill_default_port()
        if not 1 <= self.port <= 65535:
            problems["port"] = [_("A port must be between 1 and 65535.")]
        if not self.database.strip():
            problems["database"] = [_("The database to read is required.")]
        if not self.username.strip():
            problems["username"] = [_("A user name is required.")]
        if self.path or self.format:
            problems.setdefault("path", []).append(_("Only file datasources take a path and a format."))
        problems.update(self._option_problems())
        return problems

    def _file_problems(self) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}
        if not self.format:
            problems["format"] = [
                _("Choose the file format: %(formats)s.") % {"formats": ", ".join(self.FileFormat.values)}
            ]
        path_problem = self._path_problem()
        if path_problem:
            problems["path"] = [path_problem]
        if self.host or self.database or self.username or self.password_ciphertext:
            problems["host"] = [_("File datasources take no host, database, user name or password.")]
        problems.update(self._option_problems())
        return problems

    def _path_problem(self) -> str | None:
        if not self.path.strip():
            return _("A directory path or an hdfs:// or s3a:// URI is required.")
        scheme = urlsplit(self.path).scheme
        if scheme in REMOTE_SCHEMES:
            return None
        if scheme not in ("", "file"):
            return _("Unsupported URI scheme %(scheme)s: use a local path, hdfs:// or s3a://.") % {
                "scheme": repr(scheme)
            }
        local = Path(urlsplit(self.path).path if scheme == "file" else self.path)
        if not local.is_absolute():
            return _("A local path must be absolute.")
        resolved = local.resolve()
        roots = settings.DQ_FILE_ROOTS
        if not any(resolved == root or root in resolved.parents for root in roots):
            allowed = ", ".join(str(r) for r in roots) or _("(none configured)")
            return _("The path must lie under one of the allowed file roots (DQ_FILE_ROOTS): %(roots)s.") % {
                "roots": allowed
            }
        return None

    def _option_problems(self) -> dict[str, list[str]]:
        if not isinstance(self.options, dict):
            return {"options": [_("Options must be a JSON object of names to values.")]}
        bad = [k for k, v in self.options.items() if not OPTION_KEY.match(str(k)) or isinstance(v, (dict, list))]
        if bad:
            return {
                "options": [
                    _("Option names must be simple identifiers with scalar values: %(names)s.")
                    % {"names": ", ".join(map(str, bad))}
                ]
            }
        problem = self._engine_problem()
        return {"options": [problem]} if problem else {}

    @property
    def pinned_engine(self) -> str:
        """The engine every run reads this datasource with (`engine` option), or "auto"."""
        return str((self.options or {}).get(ENGINE_OPTION) or AUTO) if isinstance(self.options, dict) else AUTO

    def _engine_problem(self) -> str | None:
        """An `engine` option must name an installed engine that can read this kind of source."""
        from dq_engine.engines import make_engine
        from dq_engine.selection import CHOICES

        engine = self.pinned_engine
        if engine not in CHOICES:
            return _("The engine option must be one of %(engines)s; got %(engine)s.") % {
                "engines": ", ".join(CHOICES),
                "engine": repr(engine),
            }
        if engine == AUTO:
            return None
        reason = make_engine(engine).reason_cannot_read(self.engine_source_shape())
        if not reason:
            return None
        return _("The %(engine)s engine cannot read this datasource: %(reason)s") % {"engine": engine, "reason": reason}

    def engine_source_shape(self):
        """What kind of source the engine sees (no table, no secret): what an engine pin is checked
        against."""
        from dq_engine.spec import FileSource, JdbcSource

        if self.type == self.Type.FILE:
            return FileSource(format=self.format or "parquet", path=self.path)
        scheme = "postgresql" if self.type == self.Type.POSTGRESQL else "mariadb"
        return JdbcSource(url=f"jdbc:{scheme}://{self.host}:{self.port}/{self.database}", driver="", table="")

    def local_path(self) -> Path:
        """The resolved local directory of a file datasource (validated to lie under a root)."""
        parts = urlsplit(self.path)
        return Path(parts.path if parts.scheme == "file" else self.path).resolve()
