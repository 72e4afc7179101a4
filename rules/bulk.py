"""One action on a selection of checks, applied check by check with the caller's rights.

Each check answers for itself: done, or refused with the reason (not found or not visible, not
the caller's to change, disabled for a run, already in that state). One refused check never stops
the others; the answer lists every check in the order asked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from accounts.rights import check_permissions
from executions.models import Run
from executions.starting import RunRequestInvalid, start_run

from .check_tags import TagField, add_tag, remove_tag
from .models import Check
from .ownership import owner_problem

ACTIONS = ("enable", "disable", "add_tag", "remove_tag", "set_owner", "delete", "run")
# The right each action needs (accounts/rights.py).
NEEDS = {"run": "run", "delete": "delete"}
NOT_VISIBLE = gettext_lazy("No such check, or one you may not see.")


class BulkRequestSerializer(serializers.Serializer):
    """`{"action", "checks": [ids], "tag"?, "owner"?}`: `tag` for add_tag/remove_tag, `owner` (a
    username) for set_owner."""

    action = serializers.ChoiceField(choices=ACTIONS)
    checks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), min_length=1, max_length=500
    )
    tag = TagField(required=False, max_length=200)
    owner = serializers.CharField(required=False, max_length=150)

    def validate(self, attrs):
        problems = {}
        if attrs["action"] in ("add_tag", "remove_tag") and not attrs.get("tag"):
            problems["tag"] = [_("Name the tag to add or remove.")]
        if attrs["action"] == "set_owner":
            name = attrs.get("owner", "")
            owner = get_user_model().objects.filter(username=name, is_active=True).first() if name else None
            if owner is None:
                problems["owner"] = [
                    _("No active user named %(name)s.") % {"name": repr(name)}
                    if name
                    else _("Name the new owner (a username).")
                ]
            attrs["owner"] = owner
        if len(set(attrs["checks"])) != len(attrs["checks"]):
            problems["checks"] = [_("A check is listed twice.")]
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


@dataclass
class Outcome:
    id: int
    name: str
    ok: bool
    detail: str


def apply(action: str, ids: list[int], user, tag: str | None = None, owner=None) -> list[Outcome]:
    visible = {c.pk: c for c in Check.objects.visible_to(user).filter(pk__in=ids).select_related("template")}
    outcomes: dict[int, Outcome] = {}
    allowed: list[Check] = []
    for pk in ids:
        check = visible.get(pk)
        if check is None:
            outcomes[pk] = Outcome(pk, "", False, str(NOT_VISIBLE))
        elif NEEDS.get(action, "change") not in check_permissions(user, check.owner_id):
            if action == "delete":
                refusal = _("Only the check's owner or an administrator may delete it.")
            else:
                refusal = _("Only the check's owner or an administrator may change it.")
            outcomes[pk] = Outcome(pk, check.name, False, refusal)
        else:
            allowed.append(check)
    if action == "run":
        outcomes.update(_run(allowed, user))
    else:
        for check in allowed:
            with transaction.atomic():
                outcomes[check.pk] = _change(action, check, user, tag, owner)
    return [outcomes[pk] for pk in ids]


def _change(action: str, check: Check, user, tag, owner) -> Outcome:
    def outcome(ok: bool, detail: str) -> Outcome:
        return Outcome(check.pk, check.name, ok, detail)

    if action in ("enable", "disable"):
        wanted = action == "enable"
        if check.enabled == wanted:
            return outcome(True, _("Already enabled.") if wanted else _("Already disabled."))
        Check.objects.filter(pk=check.pk).update(enabled=wanted)
        return outcome(True, _("Enabled.") if wanted else _("Disabled."))
    named = {"tag": repr(tag)}
    if action == "add_tag":
        return outcome(True, (_("Tagged %(tag)s.") if add_tag(check, tag) else _("Already tagged %(tag)s.")) % named)
    if action == "remove_tag":
        removed = remove_tag(check, tag)
        return outcome(True, (_("Tag %(tag)s removed.") if removed else _("Had no tag %(tag)s.")) % named)
    if action == "set_owner":
        problem = owner_problem(check, owner)
        if problem:
            return outcome(False, problem)
        Check.objects.filter(pk=check.pk).update(owner=owner)
        return outcome(True, _("Now owned by %(user)s.") % {"user": owner.get_username()})
    check.soft_delete()  # "delete"
    return outcome(True, _("Deleted."))


def _run(checks: list[Check], user) -> dict[int, Outcome]:
    """One run of the enabled checks; when that run is refused (a check reads a deleted
    datasource), each check is started on its own so the refusal names the check it is about."""
    disabled = _("Disabled: enable it to run it.")
    outcomes = {c.pk: Outcome(c.pk, c.name, False, disabled) for c in checks if not c.enabled}
    runnable = [c for c in checks if c.enabled]
    if not runnable:
        return outcomes
    try:
        run, _created = start_run(runnable, user, trigger=Run.Trigger.MANUAL)
    except RunRequestInvalid:
        for check in runnable:
            try:
                run, _created = start_run([check], user, trigger=Run.Trigger.MANUAL)
            except RunRequestInvalid as exc:
                outcomes[check.pk] = Outcome(check.pk, check.name, False, " ".join(_messages(exc)))
            else:
                outcomes[check.pk] = Outcome(check.pk, check.name, True, _started(run))
        return outcomes
    outcomes.update((c.pk, Outcome(c.pk, c.name, True, _started(run))) for c in runnable)
    return outcomes


def _started(run: Run) -> str:
    return _("Started in run %(run)s.") % {"run": run.pk}


def _messages(exc: RunRequestInvalid) -> list[str]:
    return [message for messages in exc.fields.values() for message in messages]


def as_json(outcomes: list[Outcome]) -> list[dict]:
    return [asdict(o) for o in outcomes]
