"""Rule templates as data, and checks (configured rule instances) with immutable versions."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .comparison_types import AGGREGATIONS, WINDOW_FORMS, ComparisonSpec, definition_problems, template_problems
from .schema import rule_json_problems
from .signals import check_deleted


def canonical_json(value: Any) -> str:
    """The one serialisation hashes are taken over: sorted keys, no whitespace, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def template_definition(rule_json: Any, inputs: list[dict[str, Any]], comparison_types: list[dict]) -> dict:
    """Everything a check computes with, besides its params: the metric definition, the inputs
    (entries with this template's overrides, in order) and the comparison types it allows."""
    return {"rule_json": rule_json, "inputs": inputs, "comparison_types": comparison_types}


def record_definition(TemplateVersion, template, definition: dict[str, Any]):  # noqa: N803
    """The template version holding `definition`: the latest one when it is unchanged, else a new
    one numbered after it. Takes the model class so the catalog loader can pass historical models
    from a migration; the template's `version` and `definition_hash` follow the result."""
    digest = content_hash(definition)
    latest = TemplateVersion.objects.filter(template_id=template.pk).order_by("-number").first()
    if latest is None or latest.definition_hash != digest:
        latest = TemplateVersion.objects.create(
            template_id=template.pk,
            number=(latest.number + 1 if latest else template.version or 1),
            definition_hash=digest,
            **definition,
        )
    if (template.version, template.definition_hash) != (latest.number, digest):
        template.version, template.definition_hash = latest.number, digest
        type(template).objects.filter(pk=template.pk).update(version=latest.number, definition_hash=digest)
    return latest


def comparison_snapshots(ComparisonType, keys: list[str]) -> list[dict[str, str]]:  # noqa: N803
    """The semantic fields of the comparison types `keys`, in that order (unknown keys skipped:
    rule_json validation reports them)."""
    rows = {row.key: row for row in ComparisonType.objects.filter(key__in=keys)}
    return [ComparisonSpec.of(rows[key]).snapshot() for key in keys if key in rows]


class RuleTemplate(models.Model):
    class RuleType(models.TextChoices):
        SINGLE_TABLE = "single_table", gettext_lazy("Single table")
        SINGLE_TABLE_CUSTOM_SQL = "single_table_custom_sql", gettext_lazy("Single table, custom SQL")
        MULTI_TABLE_ACCURACY = "multi_table_accuracy", gettext_lazy("Multi-table accuracy")
        MULTI_TABLE_COMPARISON = "multi_table_comparison", gettext_lazy("Two-table comparison")

    class Dimension(models.TextChoices):
        COMPLETENESS = "completeness", gettext_lazy("Completeness")
        UNIQUENESS = "uniqueness", gettext_lazy("Uniqueness")
        VALIDITY = "validity", gettext_lazy("Validity")
        TIMELINESS = "timeliness", gettext_lazy("Timeliness")
        ACCURACY = "accuracy", gettext_lazy("Accuracy")
        CONSISTENCY = "consistency", gettext_lazy("Consistency")
        CUSTOM = "custom", gettext_lazy("Custom")

    key = models.SlugField(
        max_length=64, unique=True, help_text=gettext_lazy("Stable identifier used by the API and in YAML.")
    )
    name = models.CharField(max_length=120)
    rule_type = models.CharField(max_length=32, choices=RuleType.choices)
    dimension = models.CharField(max_length=20, choices=Dimension.choices)
    description = models.TextField()
    rule_json = models.JSONField(
        help_text=gettext_lazy("The metric definition the engine executes (validated on save).")
    )
    version = models.PositiveIntegerField(default=1, editable=False)
    definition_hash = models.CharField(max_length=64, editable=False, blank=True)
    builtin = models.BooleanField(default=False, editable=False)
    entries = models.ManyToManyField("InputEntry", through="TemplateInput", related_name="templates")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["dimension", "key"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, refresh: bool = True, **kwargs) -> None:
        """`refresh=False`: the caller records the version once the inputs are saved too (admin)."""
        self.clean()
        super().save(*args, **kwargs)
        if refresh:
            self.refresh_definition()

    def clean(self) -> None:
        problems = rule_json_problems(self.rule_json, comparison_type_keys=ComparisonType.objects.key_list())
        if not problems and self.pk is not None and not getattr(self, "inputs_pending", False):
            problems = self.comparison_type_problems({i.field for i in self.resolved_inputs()})
        if problems:
            raise ValidationError({"rule_json": problems})

    def comparison_type_problems(self, input_fields: set[str]) -> list[str]:
        specs = [ComparisonSpec.of(s) for s in comparison_snapshots(ComparisonType, self.allowed_comparison_types())]
        return template_problems(self.rule_json.get("metric") or {}, specs, input_fields)

    def current_definition(self) -> dict[str, Any]:
        return template_definition(
            self.rule_json,
            [dict(i) for i in self.resolved_inputs()],
            comparison_snapshots(ComparisonType, self.allowed_comparison_types()),
        )

    def refresh_definition(self) -> TemplateVersion:
        """The template version of the current definition, written when rule_json, the inputs or
        an allowed comparison type changed. Check versions point at it; runs compute from it."""
        return record_definition(TemplateVersion, self, self.current_definition())

    @property
    def metric(self) -> dict[str, Any]:
        return self.rule_json["metric"]

    def resolved_inputs(self) -> list[ResolvedInput]:
        """The template's inputs in order, each entry merged with this template's overrides."""
        links = self.template_inputs.select_related("entry").order_by("position")
        return [link.resolved() for link in links]

    def allowed_comparison_types(self) -> list[str]:
        return list(self.rule_json.get("comparison_types", []))


class InputEntry(models.Model):
    class FormType(models.TextChoices):
        INPUT = "input", gettext_lazy("Text input")
        INPUT_NUMBER = "input_number", gettext_lazy("Number input")
        SELECT = "select", gettext_lazy("Select")
        TEXTAREA = "textarea", gettext_lazy("Text area")
        GROUP = "group", gettext_lazy("Repeatable group")
        YAML = "yaml", gettext_lazy("YAML editor")

    class ValueType(models.TextChoices):
        STRING = "string", gettext_lazy("Text")
        INTEGER = "integer", gettext_lazy("Whole number")
        NUMBER = "number", gettext_lazy("Number")
        CHOICE = "choice", gettext_lazy("One of the options")
        LIST = "list", gettext_lazy("List of values")
        DATASOURCE = "datasource", gettext_lazy("Datasource id")
        TABLE = "table", gettext_lazy("Table of the datasource above")
        COLUMN = "column", gettext_lazy("Column of the table above")
        SQL_FILTER = "sql_filter", gettext_lazy("SQL boolean filter")
        SQL_SELECT = "sql_select", gettext_lazy("Read-only SQL SELECT")
        REGEXP = "regexp", gettext_lazy("Regular expression")
        DATETIME = "datetime", gettext_lazy("Date and time (YYYY-MM-DD HH:MM:SS)")
        MAPPING = "mapping", gettext_lazy("Column pairs")
        CHECK_YAML = "check_yaml", gettext_lazy("Row checks (check.yaml)")
        OUTPUT_PATH = "output_path", gettext_lazy("Folder under the allowed file roots")
        RANGE_BOUND = "range_bound", gettext_lazy("Number, date or timestamp, as the column above holds")

    class OptionSource(models.TextChoices):
        NONE = "", gettext_lazy("Fixed options")
        DATASOURCES = "datasources", gettext_lazy("Datasources the user may use")
        TABLES = "tables", gettext_lazy("Tables of the datasource named by depends_on")
        COLUMNS = "columns", gettext_lazy("Columns of the table named by depends_on")
        COMPARISON_TYPES = "comparison_types", gettext_lazy("Comparison types the template allows")

    field = models.SlugField(max_length=64, unique=True)
    form_type = models.CharField(max_length=20, choices=FormType.choices)
    value_type = models.CharField(max_length=20, choices=ValueType.choices)
    title = models.CharField(max_length=120)
    placeholder = models.CharField(max_length=255, blank=True)
    help = models.TextField(blank=True)
    default = models.JSONField(null=True, blank=True)
    options = models.JSONField(
        default=list, blank=True, help_text=gettext_lazy('Fixed options: [{"label": ..., "value": ...}].')
    )
    option_source = models.CharField(max_length=20, choices=OptionSource.choices, blank=True)
    depends_on = models.SlugField(
        max_length=64, blank=True, help_text=gettext_lazy("The field whose change reloads and clears this one.")
    )
    shown_when = models.JSONField(
        default=dict,
        blank=True,
        help_text=gettext_lazy('Show only when other fields hold these values, e.g. {"comparison_type": "fix_value"}.'),
    )
    constraints = models.JSONField(default=dict, blank=True, help_text=gettext_lazy('Extra limits, e.g. {"min": 0}.'))
    required = models.BooleanField(default=False)
    shown = models.BooleanField(default=True)
    editable = models.BooleanField(default=True)
    reloads_dependents = models.BooleanField(
        default=False, help_text=gettext_lazy("A change reloads the fields that depend on it.")
    )

    class Meta:
        ordering = ["field"]
        verbose_name_plural = "input entries"

    def __str__(self) -> str:
        return self.field

    def save(self, *args, **kwargs) -> None:
        super().save(*args, **kwargs)
        for template in self.templates.all():  # the entry is part of their definition
            template.refresh_definition()

    def clean(self) -> None:
        # A choice may take its options from the metric field it feeds (a length operator, an
        # aggregate: dq_engine.vocabulary), so only other selects need options here.
        if self.form_type == self.FormType.SELECT and not (
            self.options or self.option_source or self.value_type in ("list", "choice")
        ):
            raise ValidationError({"options": _("A select needs fixed options or an option source.")})
        if self.option_source in (self.OptionSource.TABLES, self.OptionSource.COLUMNS) and not self.depends_on:
            raise ValidationError({"depends_on": _("Tables and columns load from the field above them: name it here.")})


# An entry's attributes besides its field name: what a template sees (and the catalog loader sets).
ENTRY_ATTRIBUTES = (
    "form_type",
    "value_type",
    "title",
    "placeholder",
    "help",
    "default",
    "options",
    "option_source",
    "depends_on",
    "shown_when",
    "constraints",
    "required",
    "shown",
    "editable",
    "reloads_dependents",
)
OVERRIDABLE = ("default", "required", "shown", "editable", "title", "placeholder", "help", "options")


class ResolvedInput(dict):
    """An entry's attributes with a template's overrides applied (a plain dict for the builders)."""

    @property
    def field(self) -> str:
        return self["field"]


class TemplateInput(models.Model):
    template = models.ForeignKey(RuleTemplate, on_delete=models.CASCADE, related_name="template_inputs")
    entry = models.ForeignKey(InputEntry, on_delete=models.PROTECT, related_name="template_inputs")
    position = models.PositiveIntegerField()
    overrides = models.JSONField(default=dict, blank=True, help_text=f"Any of: {', '.join(OVERRIDABLE)}.")

    class Meta:
        ordering = ["template", "position"]
        constraints = [models.UniqueConstraint(fields=["template", "entry"], name="one_entry_per_template")]

    def __str__(self) -> str:
        return f"{self.template_id}#{self.position}"

    def clean(self) -> None:
        unknown = set(self.overrides) - set(OVERRIDABLE)
        if unknown:
            raise ValidationError(
                {"overrides": _("Unknown override keys: %(keys)s.") % {"keys": ", ".join(sorted(unknown))}}
            )

    def resolved(self) -> ResolvedInput:
        return ResolvedInput(resolve_input(self.entry, self.overrides))


def resolve_input(entry, overrides: dict[str, Any]) -> dict[str, Any]:
    """An entry's attributes with a template's overrides applied (also used by the catalog loader
    with historical models)."""
    merged = {name: getattr(entry, name) for name in ("field", *ENTRY_ATTRIBUTES)}
    merged.update({k: v for k, v in overrides.items() if k in OVERRIDABLE})
    return merged


class ImmutableVersion(Exception):
    pass


class TemplateVersion(models.Model):
    """An immutable copy of a template's definition at one version number. A check version points
    at the one it was saved with and every run computes from it, so editing the template later
    changes no existing check version (a run references a concrete version, never a record
    edited in place); checks move on when edited or explicitly upgraded."""

    template = models.ForeignKey(RuleTemplate, on_delete=models.CASCADE, related_name="definitions")
    number = models.PositiveIntegerField()
    rule_json = models.JSONField()
    inputs = models.JSONField(
        help_text=gettext_lazy("The resolved inputs (entry attributes with overrides), in order.")
    )
    comparison_types = models.JSONField(
        help_text=gettext_lazy("The allowed comparison types' fields, in rule_json's order.")
    )
    definition_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["template", "number"]
        constraints = [models.UniqueConstraint(fields=["template", "number"], name="one_number_per_template")]

    def __str__(self) -> str:
        return f"{self.template_id} v{self.number}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise ImmutableVersion("A template version is immutable; change the template to write a new one.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableVersion("A template version is never deleted; check versions compute from it.")

    def comparison_spec(self, key: str) -> ComparisonSpec | None:
        for snapshot in self.comparison_types:
            if snapshot["key"] == key:
                return ComparisonSpec.of(snapshot)
        return None


class ComparisonTypeQuerySet(models.QuerySet):
    def key_list(self) -> list[str]:
        return list(self.values_list("key", flat=True))


class ComparisonType(models.Model):
    """Where a check's expected value comes from, built from fields (rules/comparison_types.py):
    an admin adds one (say a 14-day median) without code, and one a run could not evaluate is
    refused when saved."""

    class Source(models.TextChoices):
        FIXED = "fixed", gettext_lazy("A fixed number")
        HISTORY = "history", gettext_lazy("This check's earlier results")
        RANGE = "range", gettext_lazy("A range from this check's earlier normal results")
        DATA = "data", gettext_lazy("Counted from the data")
        ANOMALY = "anomaly", gettext_lazy("Anomaly detection on this check's earlier normal results")

    class Batch(models.TextChoices):
        SOURCE = "source", gettext_lazy("The source table")
        TARGET = "target", gettext_lazy("The target table")
        PARTITION = "partition", gettext_lazy("Range only: a baseline per partition")

    # 40: results store the key (executions.Result.comparison_type).
    key = models.SlugField(
        max_length=40, unique=True, help_text=gettext_lazy("Stable identifier; cannot change once saved.")
    )
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=10, choices=Source.choices)
    window = models.CharField(
        max_length=20,
        blank=True,
        help_text=f"History and range: {WINDOW_FORMS} (e.g. last_14_days; a range needs last_<N>_runs/days).",
    )
    aggregation = models.CharField(
        max_length=10,
        blank=True,
        help_text=f"History: {', '.join(AGGREGATIONS)} of the values in the window; range: sigma_<k> or pct_<p>.",
    )
    batch = models.CharField(
        max_length=10,
        choices=Batch.choices,
        blank=True,
        help_text=gettext_lazy("Data: whose rows are counted; range: `partition` for a baseline per partition."),
    )
    position = models.PositiveIntegerField(default=0)

    objects = ComparisonTypeQuerySet.as_manager()

    class Meta:
        ordering = ["position", "key"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.clean()
        super().save(*args, **kwargs)
        for template in self.templates_allowing():  # what they compare with may have changed
            template.refresh_definition()

    def clean(self) -> None:
        problems = definition_problems(self.source, self.window, self.aggregation, self.batch)
        if self.pk is not None:
            stored = ComparisonType.objects.filter(pk=self.pk).values_list("key", flat=True).first()
            if stored is not None and stored != self.key:
                problems["key"] = ["A comparison type's key cannot change; templates and checks refer to it."]
        if problems:
            raise ValidationError(problems)

    def templates_allowing(self) -> list[RuleTemplate]:
        return [t for t in RuleTemplate.objects.all() if self.key in t.allowed_comparison_types()]


# The dimensions a check is scored in (DAMA's six, DolphinScheduler's four among them). A template
# may say `custom` (its own SQL measures anything): its checks count as validity unless they name
# their dimension (`Check.dimension`).
QUALITY_DIMENSIONS = ("completeness", "uniqueness", "validity", "timeliness", "accuracy", "consistency")
UNCLASSIFIED_COUNTS_AS = "validity"


def effective_dimension(check_dimension: str, template_dimension: str) -> str:
    """The dimension a check is scored in: its own when it names one, else its template's."""
    if check_dimension:
        return check_dimension
    return template_dimension if template_dimension in QUALITY_DIMENSIONS else UNCLASSIFIED_COUNTS_AS


class CheckQuerySet(models.QuerySet):
    def alive(self) -> CheckQuerySet:
        return self.filter(deleted_at__isnull=True)

    def enabled(self) -> CheckQuerySet:
        """Checks that schedules and batch runs start: a disabled check stays listed, unrun."""
        return self.filter(enabled=True)

    def visible_to(self, user) -> CheckQuerySet:
        """Alive checks whose current datasources' data the user may read (admins: every alive one).

        Decided by `Datasource.objects.readable_by`, so a deleted datasource keeps its groups'
        say: its group members still see a check that reads it (and can point it at another
        datasource; running it is refused with a message), everyone else still does not. Earlier
        runs and versions of a check are judged by what *they* read (Run/CheckVersion.visible_to).
        """
        from datasources.models import reading_only_readable

        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.alive()
        return self.alive().filter(reading_only_readable(user, Check.datasources.through.objects.all(), "check"))


class Check(models.Model):
    """A rule template configured with params. Every change writes a new immutable CheckVersion."""

    name = models.CharField(max_length=200)
    template = models.ForeignKey(RuleTemplate, on_delete=models.PROTECT, related_name="checks")
    params = models.JSONField()
    current_version = models.PositiveIntegerField(default=0)
    datasources = models.ManyToManyField("datasources.Datasource", related_name="checks", blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="checks")
    # Empty: the template's. Not part of a version: it files the check, it changes no result.
    dimension = models.CharField(
        max_length=20,
        blank=True,
        default="",
        choices=[(key, key.capitalize()) for key in QUALITY_DIMENSIONS],
        help_text=gettext_lazy("The quality dimension the check is scored in; empty: its template's."),
    )
    enabled = models.BooleanField(
        default=True,
        help_text=gettext_lazy("A disabled check is skipped by schedules and by the runs of a batch or table."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CheckQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["name"], condition=models.Q(deleted_at__isnull=True), name="unique_live_check_name"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def effective_dimension(self) -> str:
        return effective_dimension(self.dimension, self.template.dimension)

    def datasource_ids(self) -> set[int]:
        return {self.params[f] for f in ("src_datasource_id", "target_datasource_id") if self.params.get(f) is not None}

    def record_version(self, user=None, upgrade: bool = False, message: str = "") -> CheckVersion:
        """Write the next version if the name or params changed, or on `upgrade`; return the current one.
        `message` says what changed and why (kept on a new version only, like a commit message).

        A new version takes the template's current version (the caller has validated the params
        against it). An unchanged check keeps the template version it was saved with, however the
        template changed since: it moves on only when edited or upgraded (rules/upgrades.py).

        Call it in the transaction that saved the check, after taking the check's row lock
        (`Check.objects.select_for_update()`; CheckViewSet's writes and the YAML import do), so
        that concurrent edits are applied one after the other: version numbers stay contiguous
        and the check's params are always its current version's. The lock is taken here too,
        for callers that forgot it (a no-op when the caller holds it).
        """
        with transaction.atomic():
            list(Check.objects.select_for_update().filter(pk=self.pk).values_list("pk", flat=True))
            return self._record_version(user, upgrade, message)

    def _record_version(self, user, upgrade: bool, message: str = "") -> CheckVersion:
        latest = self.versions.order_by("-number").first()
        if latest and not upgrade and (latest.name, latest.params) == (self.name, self.params):
            return latest
        definition = self.template.refresh_definition()
        body = {"name": self.name, "template": self.template.key, "template_version": definition.number}
        digest = content_hash({**body, "params": self.params})
        if latest and latest.content_hash == digest:
            return latest
        version = CheckVersion.objects.create(
            parent_check=self,
            number=(latest.number + 1 if latest else 1),
            name=self.name,
            template_key=self.template.key,
            template_version=definition.number,
            definition=definition,
            params=self.params,
            content_hash=digest,
            created_by=user,
            message=message,
        )
        # Frozen with the version: who may read it follows these, whatever the check reads later.
        version.datasources.set(self.datasource_ids())
        Check.objects.filter(pk=self.pk).update(current_version=version.number)
        self.current_version = version.number
        self.datasources.set(self.datasource_ids())
        return version

    def current(self) -> CheckVersion:
        return self.versions.select_related("definition").get(number=self.current_version)

    def soft_delete(self, by=None) -> None:
        """Keep the versions (results refer to them); hide the check and free its name. Listeners
        of `rules.signals.check_deleted` tidy up in the same transaction (watching resolves the
        check's open incidents); `by` is who deleted it, if a person did."""
        with transaction.atomic():
            self.deleted_at = timezone.now()
            self.save(update_fields=["deleted_at"])
            check_deleted.send(sender=Check, check=self, by=by)


# A version's message: one line, like a commit's subject.
MESSAGE_MAX_LENGTH = 500


class CheckTag(models.Model):
    """A free-form label on a check ("finance", "nightly"): a team's way to find and act on its
    checks together. Not part of the check's versions: labelling a check changes nothing it computes."""

    rule_check = models.ForeignKey(Check, on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=50)

    class Meta:
        ordering = ["rule_check", "name"]
        constraints = [models.UniqueConstraint(fields=["rule_check", "name"], name="one_tag_name_per_check")]
        indexes = [models.Index(fields=["name"], name="check_tag_name")]

    def __str__(self) -> str:
        return f"{self.rule_check_id}: {self.name}"


class CheckVersionQuerySet(models.QuerySet):
    def visible_to(self, user) -> CheckVersionQuerySet:
        """Versions all of whose frozen datasources the user may read (admins: all), so moving a
        check to an open datasource does not open its earlier versions to everyone."""
        from datasources.models import reading_only_readable

        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        return self.filter(reading_only_readable(user, CheckVersionDatasource.objects.all(), "check_version"))


class CheckVersion(models.Model):
    parent_check = models.ForeignKey(Check, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    template_key = models.SlugField(max_length=64)
    template_version = models.PositiveIntegerField()
    # Null only on rows written before template versions existed, until migration fills it.
    definition = models.ForeignKey(
        TemplateVersion,
        on_delete=models.PROTECT,
        null=True,
        related_name="check_versions",
        help_text=gettext_lazy("The template version this check version computes with."),
    )
    params = models.JSONField()
    content_hash = models.CharField(max_length=64)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    message = models.CharField(
        max_length=MESSAGE_MAX_LENGTH,
        blank=True,
        default="",
        help_text=gettext_lazy("What changed in this version, and why."),
    )
    datasources = models.ManyToManyField(
        "datasources.Datasource", through="CheckVersionDatasource", related_name="check_versions", blank=True
    )

    objects = CheckVersionQuerySet.as_manager()

    class Meta:
        ordering = ["parent_check", "number"]
        constraints = [models.UniqueConstraint(fields=["parent_check", "number"], name="one_number_per_check")]

    def __str__(self) -> str:
        return f"{self.parent_check_id} v{self.number}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise ImmutableVersion("A check version is immutable; change the check to write a new version.")
        if self.definition_id is None:
            self.definition = self._named_definition()
            self.template_version = self.definition.number
        super().save(*args, **kwargs)

    def _named_definition(self) -> TemplateVersion:
        """The template version `template_key`/`template_version` name, or the current one when
        that number has no stored copy (a caller that did not pass the definition)."""
        named = TemplateVersion.objects.filter(template__key=self.template_key, number=self.template_version).first()
        return named or RuleTemplate.objects.get(key=self.template_key).refresh_definition()

    @property
    def rule_json(self) -> dict[str, Any]:
        """The metric definition as it was when this version was saved (never the template's current one)."""
        return self.definition.rule_json

    def comparison_spec(self) -> ComparisonSpec | None:
        """The comparison type this version's params name, as defined in its template version."""
        key = self.params.get("comparison_type")
        return self.definition.comparison_spec(key) if key else None

    def delete(self, *args, **kwargs):
        raise ImmutableVersion("A check version is never deleted; soft-delete the check instead.")


class CheckVersionDatasource(models.Model):
    """A datasource a check version reads, frozen when the version is written. PROTECT: a
    datasource that a version read is soft-deleted, never removed, so its groups keep deciding."""

    check_version = models.ForeignKey(CheckVersion, on_delete=models.CASCADE)
    datasource = models.ForeignKey("datasources.Datasource", on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["check_version", "datasource"], name="one_link_per_version_datasource")
        ]

    def __str__(self) -> str:
        return f"{self.check_version_id} read {self.datasource_id}"


class RejectedSuggestionQuerySet(models.QuerySet):
    def visible_to(self, user) -> RejectedSuggestionQuerySet:
        """Rejections of tables whose datasource the user may read (admins: all)."""
        from datasources.models import Datasource

        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        return self.filter(datasource__in=Datasource.objects.readable_by(user))


class RejectedSuggestion(models.Model):
    """A suggested check (profiling/suggesting.py) a user turned down for a table: not offered again
    to that table while the profile keeps suggesting the same check (same fingerprint: the
    column, the kind and every param that decides the check). New figures that change the
    suggestion change its fingerprint, and it is offered again."""

    datasource = models.ForeignKey("datasources.Datasource", on_delete=models.CASCADE, related_name="+")
    table = models.CharField(max_length=500)
    column = models.CharField(max_length=500)
    kind = models.CharField(max_length=40)
    fingerprint = models.CharField(max_length=64)
    params = models.JSONField(
        default=dict, help_text=gettext_lazy("The suggested check's params, as they were offered.")
    )
    rejected_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    rejected_at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)

    objects = RejectedSuggestionQuerySet.as_manager()

    class Meta:
        ordering = ["-rejected_at"]
        constraints = [
            models.UniqueConstraint(fields=["datasource", "table", "fingerprint"], name="one_rejection_per_suggestion")
        ]

    def __str__(self) -> str:
        return f"{self.table}.{self.column} {self.kind} (rejected)"
