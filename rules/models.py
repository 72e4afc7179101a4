"""Rule templates as data, and checks (configured rule instances) with immutable versions."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from .schema import rule_json_problems


def canonical_json(value: Any) -> str:
    """The one serialisation hashes are taken over: sorted keys, no whitespace, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def definition_digest(rule_json: Any, inputs: list[dict[str, Any]]) -> str:
    """What a template's version tracks: its metric definition and its ordered inputs with overrides."""
    return content_hash({"rule_json": rule_json, "inputs": inputs})


class RuleTemplate(models.Model):
    class RuleType(models.TextChoices):
        SINGLE_TABLE = "single_table", "Single table"
        SINGLE_TABLE_CUSTOM_SQL = "single_table_custom_sql", "Single table, custom SQL"
        MULTI_TABLE_ACCURACY = "multi_table_accuracy", "Multi-table accuracy"
        MULTI_TABLE_COMPARISON = "multi_table_comparison", "Two-table comparison"

    class Dimension(models.TextChoices):
        COMPLETENESS = "completeness", "Completeness"
        UNIQUENESS = "uniqueness", "Uniqueness"
        VALIDITY = "validity", "Validity"
        TIMELINESS = "timeliness", "Timeliness"
        ACCURACY = "accuracy", "Accuracy"
        CONSISTENCY = "consistency", "Consistency"
        CUSTOM = "custom", "Custom"

    key = models.SlugField(max_length=64, unique=True, help_text="Stable identifier used by the API and in YAML.")
    name = models.CharField(max_length=120)
    rule_type = models.CharField(max_length=32, choices=RuleType.choices)
    dimension = models.CharField(max_length=20, choices=Dimension.choices)
    description = models.TextField()
    rule_json = models.JSONField(help_text="The metric definition the engine executes (validated on save).")
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

    def save(self, *args, **kwargs) -> None:
        self.clean()
        super().save(*args, **kwargs)
        self.refresh_definition()

    def clean(self) -> None:
        problems = rule_json_problems(self.rule_json)
        if problems:
            raise ValidationError({"rule_json": problems})

    def input_definitions(self) -> list[dict[str, Any]]:
        links = self.template_inputs.select_related("entry").order_by("position")
        return [{"field": link.entry.field, **link.overrides} for link in links]

    def refresh_definition(self) -> None:
        """Bump the version when rule_json or the inputs changed; checks record the version they used."""
        digest = definition_digest(self.rule_json, self.input_definitions())
        if digest == self.definition_hash:
            return
        if self.definition_hash:
            self.version += 1
        self.definition_hash = digest
        RuleTemplate.objects.filter(pk=self.pk).update(version=self.version, definition_hash=digest)

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
        INPUT = "input", "Text input"
        INPUT_NUMBER = "input_number", "Number input"
        SELECT = "select", "Select"
        TEXTAREA = "textarea", "Text area"
        GROUP = "group", "Repeatable group"

    class ValueType(models.TextChoices):
        STRING = "string", "Text"
        INTEGER = "integer", "Whole number"
        NUMBER = "number", "Number"
        CHOICE = "choice", "One of the options"
        LIST = "list", "List of values"
        DATASOURCE = "datasource", "Datasource id"
        TABLE = "table", "Table of the datasource above"
        COLUMN = "column", "Column of the table above"
        SQL_FILTER = "sql_filter", "SQL boolean filter"
        SQL_SELECT = "sql_select", "Read-only SQL SELECT"
        REGEXP = "regexp", "Regular expression"
        DATETIME = "datetime", "Date and time (YYYY-MM-DD HH:MM:SS)"
        MAPPING = "mapping", "Column pairs"

    class OptionSource(models.TextChoices):
        NONE = "", "Fixed options"
        DATASOURCES = "datasources", "Datasources the user may use"
        TABLES = "tables", "Tables of the datasource named by depends_on"
        COLUMNS = "columns", "Columns of the table named by depends_on"
        COMPARISON_TYPES = "comparison_types", "Comparison types the template allows"

    field = models.SlugField(max_length=64, unique=True)
    form_type = models.CharField(max_length=20, choices=FormType.choices)
    value_type = models.CharField(max_length=20, choices=ValueType.choices)
    title = models.CharField(max_length=120)
    placeholder = models.CharField(max_length=255, blank=True)
    help = models.TextField(blank=True)
    default = models.JSONField(null=True, blank=True)
    options = models.JSONField(default=list, blank=True, help_text='Fixed options: [{"label": ..., "value": ...}].')
    option_source = models.CharField(max_length=20, choices=OptionSource.choices, blank=True)
    depends_on = models.SlugField(
        max_length=64, blank=True, help_text="The field whose change reloads and clears this one."
    )
    shown_when = models.JSONField(
        default=dict,
        blank=True,
        help_text='Show only when other fields hold these values, e.g. {"comparison_type": "fix_value"}.',
    )
    constraints = models.JSONField(default=dict, blank=True, help_text='Extra limits, e.g. {"min": 0}.')
    required = models.BooleanField(default=False)
    shown = models.BooleanField(default=True)
    editable = models.BooleanField(default=True)
    reloads_dependents = models.BooleanField(default=False, help_text="A change reloads the fields that depend on it.")

    class Meta:
        ordering = ["field"]
        verbose_name_plural = "input entries"

    def __str__(self) -> str:
        return self.field

    def clean(self) -> None:
        # A choice may take its options from the metric field it feeds (a length operator, an
        # aggregate: dq_engine.vocabulary), so only other selects need options here.
        if self.form_type == self.FormType.SELECT and not (
            self.options or self.option_source or self.value_type in ("list", "choice")
        ):
            raise ValidationError({"options": "A select needs fixed options or an option source."})
        if self.option_source in (self.OptionSource.TABLES, self.OptionSource.COLUMNS) and not self.depends_on:
            raise ValidationError({"depends_on": "Tables and columns load from the field above them: name it here."})


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
            raise ValidationError({"overrides": f"Unknown override keys: {', '.join(sorted(unknown))}."})

    def resolved(self) -> ResolvedInput:
        entry = self.entry
        merged = {name: getattr(entry, name) for name in ("field", *ENTRY_ATTRIBUTES)}
        merged.update({k: v for k, v in self.overrides.items() if k in OVERRIDABLE})
        return ResolvedInput(merged)


class ComparisonType(models.Model):
    class Source(models.TextChoices):
        FIXED = "fixed", "A fixed number"
        HISTORY = "history", "This check's earlier results"
        DATA = "data", "Counted from the data"

    key = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=10, choices=Source.choices)
    window = models.CharField(
        max_length=20, blank=True, help_text="History windows: day, week, month, last_7_days, last_30_days."
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return self.name


class CheckQuerySet(models.QuerySet):
    def alive(self) -> CheckQuerySet:
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user) -> CheckQuerySet:
        """Checks all of whose datasources the user may use (admins see every check)."""
        from datasources.models import Datasource

        if user.is_staff:
            return self.alive()
        hidden = Datasource.objects.exclude(pk__in=Datasource.objects.visible_to(user).values("pk"))
        return self.alive().exclude(datasources__in=hidden)


class Check(models.Model):
    """A rule template configured with params. Every change writes a new immutable CheckVersion."""

    name = models.CharField(max_length=200)
    template = models.ForeignKey(RuleTemplate, on_delete=models.PROTECT, related_name="checks")
    params = models.JSONField()
    current_version = models.PositiveIntegerField(default=0)
    datasources = models.ManyToManyField("datasources.Datasource", related_name="checks", blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="checks")
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

    def datasource_ids(self) -> set[int]:
        return {self.params[f] for f in ("src_datasource_id", "target_datasource_id") if self.params.get(f) is not None}

    def record_version(self, user=None) -> CheckVersion:
        """Write the next version if name, template or params changed; return the current one."""
        body = {
            "name": self.name,
            "template": self.template.key,
            "template_version": self.template.version,
            "params": self.params,
        }
        digest = content_hash(body)
        latest = self.versions.order_by("-number").first()
        if latest and latest.content_hash == digest:
            return latest
        version = CheckVersion.objects.create(
            parent_check=self,
            number=(latest.number + 1 if latest else 1),
            name=self.name,
            template_key=self.template.key,
            template_version=self.template.version,
            params=self.params,
            content_hash=digest,
            created_by=user,
        )
        Check.objects.filter(pk=self.pk).update(current_version=version.number)
        self.current_version = version.number
        self.datasources.set(self.datasource_ids())
        return version

    def soft_delete(self) -> None:
        """Keep the versions (results refer to them); hide the check and free its name."""
        self.deleted_at = timezone.now()
        self.save(update_fields=["deleted_at"])


class ImmutableVersion(Exception):
    pass


class CheckVersion(models.Model):
    parent_check = models.ForeignKey(Check, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    template_key = models.SlugField(max_length=64)
    template_version = models.PositiveIntegerField()
    params = models.JSONField()
    content_hash = models.CharField(max_length=64)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["parent_check", "number"]
        constraints = [models.UniqueConstraint(fields=["parent_check", "number"], name="one_number_per_check")]

    def __str__(self) -> str:
        return f"{self.parent_check_id} v{self.number}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise ImmutableVersion("A check version is immutable; change the check to write a new version.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableVersion("A check version is never deleted; soft-delete the check instead.")
