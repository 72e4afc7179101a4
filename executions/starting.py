"""Starting a run: freeze the batches and the check versions, create the Run, enqueue it after
commit. Crosses apps (rules, datasources, executions), so it lives here rather than on a model."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from sqlglot import exp

from datasources.connectors import connector_for
from datasources.models import Datasource
from dq_engine.selection import AUTO, EngineRefused
from dq_engine.sql_safety import filter_to_spark_sql, parse_filter
from rules.models import Check, CheckVersion, canonical_json, content_hash

from .engine_choice import choose_for_run
from .models import Run, RunDatasource, datasource_ids_read
from .stored_words import reworded


class RunRequestInvalid(Exception):
    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


def start_run(
    checks: list[Check],
    user,
    biz_date: date | None = None,
    trigger: str = Run.Trigger.API,
    idempotency_key: str | None = None,
    partitions: dict[tuple[int, str], dict[str, Any]] | None = None,
    context: dict[str, str] | None = None,
    engine: str = AUTO,
) -> tuple[Run, bool]:
    """Freeze the batch, the engine of each batch and the check versions, create the run, enqueue
    it after commit.

    `partitions` ({(datasource id, table): {column: value}}) narrows every batch reading that
    table to one partition: equality filters ANDed to each check's own filter (a registered
    batch, gates/registering.py). `context` adds to the run's parameters (the gate's batch id and
    schedule type, which history comparisons read). Returns (run, created); the same idempotency
    key returns the earlier run. Raises RunRequestInvalid naming `checks` for a check that reads
    a deleted datasource, or `engine` for an engine (the run's `engine`, or a datasource's pin)
    that cannot run one of the batches.
    """
    if idempotency_key:
        existing = Run.objects.filter(idempotency_key=idempotency_key).first()
        if existing:
            return existing, False
    refuse_checks_reading_deleted_datasources(checks)
    biz_date = biz_date or timezone.localdate()
    versions = current_versions(checks)
    parameters = {**(context or {}), "biz_date": biz_date.isoformat()}
    batches, assignments = freeze_batches(versions, parameters, partitions)
    try:
        choose_for_run(batches, assignments, versions, engine)
    except EngineRefused as exc:
        raise RunRequestInvalid({"engine": [reworded(str(exc))]}) from None
    try:
        with transaction.atomic():
            run = Run.objects.create(
                trigger=trigger,
                biz_date=biz_date,
                data_time=_business_time(biz_date),
                parameters=parameters,
                batches={"definitions": batches, "assignments": assignments},
                rule_set_hash=content_hash(sorted(v.content_hash for v in versions)),
                idempotency_key=idempotency_key or None,
                created_by=user,
            )
            # Plain inserts of the links of a run just made (set() would first ask which exist): the
            # fewer statements in this transaction, the shorter other writers wait for SQLite's lock.
            Run.check_versions.through.objects.bulk_create(
                Run.check_versions.through(run_id=run.pk, checkversion_id=v.pk) for v in versions
            )
            # Who may read the run follows what it read, whatever its checks read later.
            RunDatasource.objects.bulk_create(
                RunDatasource(run_id=run.pk, datasource_id=d) for d in sorted(datasource_ids_read(run.batches))
            )
            transaction.on_commit(lambda: enqueue(run))
    except IntegrityError:  # two requests with one idempotency key raced; the first one wins
        return Run.objects.get(idempotency_key=idempotency_key), False
    return run, True


# Checks whose versions one query asks for: SQLite nests each OR of the condition one level
# deeper, and refuses an expression deeper than 1,000.
VERSIONS_PER_QUERY = 200


def current_versions(checks: list[Check]) -> list[CheckVersion]:
    """Each check's current version (the one its `current_version` names), in the checks' order,
    with the template version it computes with: a query per 200 checks, not two per check."""
    found: dict[int, CheckVersion] = {}
    for start in range(0, len(checks), VERSIONS_PER_QUERY):
        some = checks[start : start + VERSIONS_PER_QUERY]
        wanted = Q(*(Q(parent_check_id=c.pk, number=c.current_version) for c in some), _connector=Q.OR)
        found.update((v.parent_check_id, v) for v in CheckVersion.objects.filter(wanted).select_related("definition"))
    return [found[c.pk] for c in checks]


def refuse_checks_reading_deleted_datasources(checks: list[Check]) -> None:
    """A deleted (or, from before soft delete, removed) datasource cannot be read any more."""
    ids = set().union(*(c.datasource_ids() for c in checks))
    found = list(Datasource.objects.filter(pk__in=ids).values_list("pk", "name", "deleted_at"))
    alive = {pk for pk, _, deleted_at in found if deleted_at is None}
    deleted = {pk: name for pk, name, deleted_at in found if deleted_at is not None}
    problems = []
    for check in checks:
        for datasource_id in sorted(check.datasource_ids() - alive):
            named = repr(deleted[datasource_id]) if datasource_id in deleted else datasource_id
            problems.append(
                gettext(
                    "Check %(name)s (id %(id)s) reads datasource %(datasource)s, which was deleted; "
                    "edit the check to read another datasource, then run it."
                )
                % {"name": repr(check.name), "id": check.pk, "datasource": named}
            )
    if problems:
        raise RunRequestInvalid({"checks": problems})


class RunAlreadyRetried(Exception):
    def __init__(self, retry: Run):
        super().__init__(
            gettext("Run %(run)s was already retried as run %(retry)s (attempt %(attempt)s).")
            % {"run": retry.retry_of_id, "retry": retry.pk, "attempt": retry.attempt}
        )
        self.retry = retry


def retry_run(run: Run, user) -> Run:
    """A new attempt of a finished run: the same check versions and the same frozen batches (a
    file batch's data version is read again: it says what this attempt reads), the same trigger,
    business date and parameters; started by `user`, enqueued after commit. Retries form a chain:
    a run that has a retry already raises RunAlreadyRetried (retry the latest attempt instead)."""
    earlier = Run.objects.filter(retry_of=run).first()
    if earlier:
        raise RunAlreadyRetried(earlier)
    deleted = list(run.datasources.filter(deleted_at__isnull=False).values_list("name", flat=True))
    if deleted:
        raise RunRequestInvalid(
            {
                "run": [
                    gettext("Run %(run)s read datasource %(datasources)s, which was deleted; it cannot be read again.")
                    % {"run": run.pk, "datasources": ", ".join(map(repr, deleted))}
                ]
            }
        )
    definitions = {name: {**batch, "data_version": _data_version_of(batch)} for name, batch in _definitions(run)}
    try:
        with transaction.atomic():
            retry = Run.objects.create(
                trigger=run.trigger,
                attempt=run.attempt + 1,
                retry_of=run,
                biz_date=run.biz_date,
                data_time=run.data_time,
                parameters=run.parameters,
                batches={**run.batches, "definitions": definitions},
                rule_set_hash=run.rule_set_hash,
                scan_mode=run.scan_mode,
                created_by=user,
            )
            retry.check_versions.set(run.check_versions.all())
            retry.datasources.set(run.datasources.all())  # it reads what the first attempt read
            transaction.on_commit(lambda: enqueue(retry))
    except IntegrityError:  # the unique retry_of: someone retried it first
        raise RunAlreadyRetried(Run.objects.get(retry_of=run)) from None
    return retry


def _definitions(run: Run):
    return run.batches.get("definitions", {}).items()


def _data_version_of(batch: dict[str, Any]) -> str | None:
    datasource = Datasource.objects.filter(pk=batch.get("datasource_id")).first()
    return _data_version(datasource, batch["table"]) if datasource else None


def enqueue(run: Run) -> None:
    from .tasks import enqueue_run

    enqueue_run(run)


def _business_time(biz_date: date) -> datetime:
    if biz_date == timezone.localdate():
        return timezone.now()
    return datetime.combine(biz_date, time.min, tzinfo=UTC)


def resolve_filter(text: str | None, parameters: dict[str, str]) -> str | None:
    """Substitute run parameters (system values, validated dates) into a stored filter."""
    if not text:
        return None
    for name, value in parameters.items():
        text = text.replace("${" + name + "}", value)
    return text


def freeze_batches(
    versions: list[CheckVersion],
    parameters: dict[str, str],
    partitions: dict[tuple[int, str], dict[str, Any]] | None = None,
) -> tuple[dict, dict]:
    """Batch definitions keyed b1, b2, … (one per datasource/table/resolved filter), and which
    batches each check version reads: {version id: {"batch": "b1", "target_batch": "b2"|None}}.
    A table in `partitions` is read with its partition's equality filters ANDed to the check's."""
    partitions = partitions or {}
    keys: dict[tuple, str] = {}
    definitions: dict[str, dict[str, Any]] = {}
    assignments: dict[str, dict[str, str | None]] = {}

    def batch_for(datasource_id: int, table: str, raw_filter: str | None) -> str:
        resolved = resolve_filter(raw_filter, parameters)
        partition = partitions.get((datasource_id, table))
        if partition:
            resolved = with_partition(resolved, partition)
        key = (datasource_id, table, resolved)
        if key not in keys:
            name = f"b{len(keys) + 1}"
            keys[key] = name
            datasource = Datasource.objects.get(pk=datasource_id)
            definitions[name] = {
                "datasource_id": datasource_id,
                "datasource": datasource.name,
                "table": table,
                "filter": resolved,
                "scan_mode": Run.ScanMode.PARTITION if resolved else Run.ScanMode.FULL,
                "data_version": _data_version(datasource, table),
            }
            if partition:
                definitions[name]["partition"] = partition
        return keys[key]

    for version in versions:
        p = version.params
        src = batch_for(p["src_datasource_id"], p["src_table"], p.get("src_filter"))
        target = None
        if p.get("target_datasource_id") is not None:
            target = batch_for(p["target_datasource_id"], p["target_table"], p.get("target_filter"))
        assignments[str(version.pk)] = {"batch": src, "target_batch": target}
    return definitions, assignments


def with_partition(resolved: str | None, partition: dict[str, Any]) -> str:
    """The filter `resolved` (or none) AND `column = value` for each partition column, built as a
    SQLGlot tree (quoted identifiers, literal values) and rendered like every stored filter; the
    partition's text is never pasted into SQL. The check's own filter is parsed as the engine will."""
    conditions = [parse_filter(resolved)] if resolved else []
    for column, value in sorted(partition.items()):
        literal = exp.Literal.number(value) if isinstance(value, int | float) else exp.Literal.string(str(value))
        conditions.append(exp.EQ(this=exp.column(column, quoted=True), expression=literal))
    return filter_to_spark_sql(exp.and_(*conditions))


def _data_version(datasource: Datasource, table: str) -> str | None:
    """A digest of the file listing (names, sizes, modification times) for local file sources;
    databases offer no snapshot id here, so None."""
    if datasource.type != Datasource.Type.FILE or datasource.is_remote_path:
        return None
    try:
        root = Path(connector_for(datasource).dataset_path(table))
    except Exception:  # noqa: BLE001 — an unreadable source is reported by the engine, not here
        return None
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    listing = [(str(p.relative_to(root.parent)), p.stat().st_size, p.stat().st_mtime_ns) for p in files]
    return "files:" + hashlib.sha256(canonical_json(listing).encode()).hexdigest()[:16]
