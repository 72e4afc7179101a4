from __future__ import annotations

import json

from django import forms
from django.contrib import admin

from .models import Check, CheckVersion, ComparisonType, InputEntry, RuleTemplate, TemplateInput
from .schema import rule_json_problems


class RuleTemplateForm(forms.ModelForm):
    class Meta:
        model = RuleTemplate
        fields = ["key", "name", "rule_type", "dimension", "description", "rule_json"]
        help_texts = {"rule_json": "The metric definition; checked against the rule_json schema when you save."}

    def clean_rule_json(self):
        rule_json = self.cleaned_data["rule_json"]
        problems = rule_json_problems(rule_json)
        if problems:
            raise forms.ValidationError(problems)
        return rule_json


class TemplateInputInline(admin.TabularInline):
    model = TemplateInput
    extra = 0
    ordering = ["position"]
    autocomplete_fields = ["entry"]


@admin.register(RuleTemplate)
class RuleTemplateAdmin(admin.ModelAdmin):
    form = RuleTemplateForm
    list_display = ["key", "name", "dimension", "rule_type", "version", "builtin"]
    list_filter = ["dimension", "rule_type", "builtin"]
    search_fields = ["key", "name"]
    readonly_fields = ["version", "builtin", "metric_summary"]
    inlines = [TemplateInputInline]

    @admin.display(description="Metric")
    def metric_summary(self, obj: RuleTemplate) -> str:
        return json.dumps(obj.rule_json.get("metric", {}), sort_keys=True) if obj.pk else ""

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        form.instance.refresh_definition()  # inputs changed → the template's version moves on


@admin.register(InputEntry)
class InputEntryAdmin(admin.ModelAdmin):
    list_display = ["field", "title", "form_type", "value_type", "option_source", "required"]
    list_filter = ["form_type", "value_type"]
    search_fields = ["field", "title"]


@admin.register(ComparisonType)
class ComparisonTypeAdmin(admin.ModelAdmin):
    list_display = ["key", "name", "source", "window", "position"]


class CheckVersionInline(admin.TabularInline):
    model = CheckVersion
    fields = ["number", "template_key", "template_version", "content_hash", "created_by", "created_at"]
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
