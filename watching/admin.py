"""Admin pages. Channel targets are write-only here too: the form never renders the stored
target (render_value=False), lists show the redacted preview."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from .channels import TargetInvalid, transport_for
from .delivery import send_test
from .models import (
    AlertChannel,
    CheckMute,
    DeliveryAttempt,
    Incident,
    IncidentChange,
    IncidentComment,
    Notification,
    Schedule,
)


class AlertChannelAdminForm(forms.ModelForm):
    target = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "size": 80}),
        help_text="Write-only: an address or URL that may hold a token. Leave blank to keep the stored target.",
    )

    class Meta:
        model = AlertChannel
        fields = ["name", "kind", "notify_on", "language", "checks", "datasources"]

    def clean(self):
        cleaned = super().clean()
        kind, target = cleaned.get("kind"), cleaned.get("target")
        if not kind:
            return cleaned
        if not target:
            if not self.instance.pk or self.instance.kind != kind:
                self.add_error("target", "A target is required for this kind.")
            return cleaned
        try:
            self.instance.kind = kind
            self.instance.target = transport_for(kind).clean_target(target)
        except TargetInvalid as exc:
            self.add_error("target", str(exc))
        return cleaned


@admin.register(AlertChannel)
class AlertChannelAdmin(admin.ModelAdmin):
    form = AlertChannelAdminForm
    list_display = ["name", "kind", "target_preview", "notify_on", "language"]
    list_filter = ["kind"]
    search_fields = ["name"]
    filter_horizontal = ["checks", "datasources"]
    readonly_fields = ["target_preview"]
    actions = ["send_test_message"]
    fields = ["name", "kind", "target", "target_preview", "notify_on", "language", "checks", "datasources"]

    @admin.action(description="Send a test message")
    def send_test_message(self, request, queryset):
        for channel in queryset:
            ok, text = send_test(channel, show_detail=True)  # the Django admin: administrators only
            self.message_user(request, f"{channel.name}: {text}", messages.SUCCESS if ok else messages.ERROR)


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    list_display = ["name", "cron", "timezone", "enabled", "owner", "last_slot", "last_run"]
    list_filter = ["enabled", "timezone"]
    search_fields = ["name"]
    filter_horizontal = ["checks"]
    readonly_fields = ["armed_at", "last_slot", "last_run", "last_message", "description", "next_runs"]

    @admin.display(description="In words")
    def description(self, obj: Schedule) -> str:
        return obj.describe() if obj.pk else ""

    @admin.display(description="Next firing times")
    def next_runs(self, obj: Schedule) -> str:
        return ", ".join(s.isoformat() for s in obj.next_slots(5)) if obj.pk else ""


class IncidentChangeInline(admin.TabularInline):
    """The history, as it was recorded: changed through the app, never here."""

    model = IncidentChange
    fields = ["at", "actor", "field", "from_value", "to_value", "note"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class IncidentCommentInline(admin.TabularInline):
    model = IncidentComment
    fields = ["created_at", "author", "text"]
    readonly_fields = fields
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Incident)
class IncidentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "rule_check",
        "status",
        "severity",
        "assignee",
        "outcome",
        "blocking",
        "occurrences",
        "opened_at",
        "resolved_at",
    ]
    list_filter = ["status", "severity", "outcome", "blocking"]
    readonly_fields = [f.name for f in Incident._meta.fields]
    inlines = [IncidentCommentInline, IncidentChangeInline]

    def has_add_permission(self, request):
        return False


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    fields = ["number", "at", "ok", "error"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """Read-only: the record of what was sent."""

    list_display = ["id", "channel_name", "channel_kind", "run", "event", "status", "attempt", "sent_at"]
    list_filter = ["status", "channel_kind", "event"]
    readonly_fields = [f.name for f in Notification._meta.fields]
    inlines = [DeliveryAttemptInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(CheckMute)
class CheckMuteAdmin(admin.ModelAdmin):
    list_display = ["rule_check", "until", "reason", "muted_by"]
