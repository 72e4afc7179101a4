from __future__ import annotations

import json

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet
from django.utils.translation import gettext_lazy

from .models import (
    Check,
    CheckVersion,
    ComparisonType,
    InputEntry,
    RejectedSuggestion,
    RuleTemplate,
    TemplateInput,
    TemplateVersion,
)
from .schema import rule_json_problems


class RuleTemplateForm(forms.ModelForm):
    class Meta:
        model = RuleTemplate
        fields = ["key", "name", "rule_type", "dimension", "description", "rule_json"]
        help_texts = {
            "rule_json": gettext_lazy("The metric definition; checked against the rule_json schema when you save.")
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The inputs arrive with the inline below: TemplateInputFormSet checks the comparison
        # types against those, not against the ones saved before this change.
        self.instance.inputs_pending = True

    def clean_rule_json(self):
        rule_json = self.cleaned_data["rule_json"]
        problems = rule_json_problems(rule_json, comparison_type_keys=ComparisonType.objects.key_list())
        if problems:
            raise forms.ValidationError(problems)
        return rule_json


class TemplateInputFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        fields = {
            form.cleaned_data["entry"].field
            for form in self.forms
            if form.cleaned_data.get("entry") and not form.cleaned_data.get("DELETE")
        }
        if isinstance(self.instance.rule_json, dict):
            problems = self.instance.comparison_type_problems(fields)
            if problems:
                raise forms.ValidationError(problems)


class TemplateInputInline(admin.TabularInline):
    model = TemplateInput
    formset = TemplateInputFormSet
    extra = 0
    ordering = ["position"]
    autocomplete_fields = ["entry"]


class TemplateVersionInline(admin.TabularInline):
    """The immutable copies check versions compute with (read-only)."""

    model = TemplateVersion
    fields = ["number", "definition_hash", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(RuleTemplate)
class RuleTemplateAdmin(admin.ModelAdmin):
    form = RuleTemplateForm
    list_display = ["key", "name", "dimension", "rule_type", "version", "builtin"]
    list_filter = ["dimension", "rule_type", "builtin"]
    search_fields = ["key", "name"]
    readonly_fields = ["version", "builtin", "metric_summary"]
    inlines = [TemplateInputInline, TemplateVersionInline]

    @admin.display(description=gettext_lazy("Metric"))
    def metric_summary(self, obj: RuleTemplate) -> str:
        return json.dumps(obj.rule_json.get("metric", {}), sort_keys=True) if obj.pk else ""

    def save_model(self, request, obj, form, change):
        obj.save(refresh=False)  # one new version for the whole change, once the inputs are saved

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        form.instance.refresh_definition()  # rule_json or inputs changed → the template's version moves on


@admin.register(InputEntry)
class InputEntryAdmin(admin.ModelAdmin):
    list_display = ["field", "title", "form_type", "value_type", "option_source", "required"]
    list_filter = ["form_type", "value_type"]
    search_fields = ["field", "title"]


@admin.register(ComparisonType)
class ComparisonTypeAdmin(admin.ModelAdmin):
    """Types are data: the model's clean refuses fields a run could not evaluate, under the field."""

    list_display = ["key", "name", "source", "window", "aggregation", "batch", "position"]
    fields = ["key", "name", "description", "source", "window", "aggregation", "batch", "position"]

    def get_readonly_fields(self, request, obj=None):
        return ["key"] if obj else []  # templates and checks refer to it by key

    def has_delete_permission(self, request, obj=None):
        return obj is None or not obj.templates_allowing()  # still offered by a template


class CheckVersionInline(admin.TabularInline):
    model = CheckVersion
    fields = ["number", "template_key", "template_version", "definition", "content_hash", "created_by", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Check)
class CheckAdmin(admin.ModelAdmin):
    list_display = ["name", "template", "current_version", "owner", "deleted_at"]
    list_filter = ["template"]
    search_fields = ["name"]
    readonly_fields = ["template", "params", "current_version", "owner", "deleted_at"]
    inlines = [CheckVersionInline]

    def has_delete_permission(self, request, obj=None):
        return False  # checks are soft-deleted through the API so their versions stay


@admin.register(RejectedSuggestion)
class RejectedSuggestionAdmin(admin.ModelAdmin):
    """Deleting one offers the suggestion again (as DELETE /api/v1/suggestions/rejected/<id>/)."""

    list_display = ["table", "column", "kind", "datasource", "rejected_by", "rejected_at"]
    list_filter = ["kind", "datasource"]
    search_fields = ["table", "column", "reason"]
    readonly_fields = ["datasource", "table", "column", "kind", "fingerprint", "params", "rejected_by", "rejected_at"]

    def has_add_permission(self, request):
        return False  # rejections come from the suggestions, with their fingerprint
