from django.contrib import admin

from .models import Batch, BatchAttempt, NonBusinessDay, Release, TablePolicy, Transition


@admin.register(TablePolicy)
class TablePolicyAdmin(admin.ModelAdmin):
    list_display = ["datasource", "table", "fail_mode"]
    list_filter = ["fail_mode"]


@admin.register(NonBusinessDay)
class NonBusinessDayAdmin(admin.ModelAdmin):
    list_display = ["date", "name"]
    date_hierarchy = "date"


class TransitionInline(admin.TabularInline):
    model = Transition
    extra = 0
    can_delete = False
    readonly_fields = ["from_state", "to_state", "reason", "actor", "actor_label", "at"]


class AttemptInline(admin.TabularInline):
    model = BatchAttempt
    extra = 0
    can_delete = False
    readonly_fields = [
        "number",
        "run",
        "rule_set_hash",
        "rules_changed",
        "skipped_checks",
        "requested_by",
        "created_at",
    ]


class ReleaseInline(admin.TabularInline):
    model = Release
    extra = 0
    can_delete = False
    readonly_fields = ["released_by", "reason", "expires_at", "created_at", "ended_at", "end_reason", "ended_by"]


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    """Read-only: batches move only through their state machine (the API and the runs)."""

    list_display = ["id", "datasource", "table", "partition", "biz_date", "state", "created_at"]
    list_filter = ["state", "schedule_type"]
    search_fields = ["table"]
    inlines = [AttemptInline, TransitionInline, ReleaseInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
