"""Tags of checks: the names a tag may have, setting a check's tags, and reading a page's tags in
one query (the checks list must not ask once per row)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _
from rest_framework import serializers

from dq_platform.text import plain_name

from .models import Check, CheckTag

MAX_TAG_LENGTH = CheckTag._meta.get_field("name").max_length
MAX_TAGS = 20


def tag_name(text: str) -> str:
    """A tag as stored: one line, stripped, 1–50 characters; ValidationError otherwise."""
    name = plain_name(text, _("A tag"))
    if not name:
        raise serializers.ValidationError(_("A tag needs at least one character that is not a space."))
    if len(name) > MAX_TAG_LENGTH:
        raise serializers.ValidationError(
            _("A tag has at most %(limit)s characters; this one has %(length)s.")
            % {"limit": MAX_TAG_LENGTH, "length": len(name)}
        )
    return name


class TagField(serializers.CharField):
    def to_internal_value(self, data):
        return tag_name(super().to_internal_value(data))


def set_tags(check: Check, names: Iterable[str]) -> None:
    """Make `names` the check's tags (duplicates kept once)."""
    wanted = set(names)
    CheckTag.objects.filter(rule_check=check).exclude(name__in=wanted).delete()
    have = set(CheckTag.objects.filter(rule_check=check).values_list("name", flat=True))
    CheckTag.objects.bulk_create(CheckTag(rule_check=check, name=n) for n in sorted(wanted - have))


def add_tag(check: Check, name: str) -> bool:
    """True when the check did not have the tag yet."""
    _, created = CheckTag.objects.get_or_create(rule_check=check, name=name)
    return created


def remove_tag(check: Check, name: str) -> bool:
    """True when the check had the tag."""
    removed, _ = CheckTag.objects.filter(rule_check=check, name=name).delete()
    return bool(removed)


def tags_of(check_ids: Iterable[int]) -> dict[int, list[str]]:
    """{check id: its tags, sorted} for a page of checks, in one query."""
    ids = list(check_ids)
    found: dict[int, list[str]] = {pk: [] for pk in ids}
    for check_id, name in (
        CheckTag.objects.filter(rule_check_id__in=ids).order_by("name").values_list("rule_check_id", "name")
    ):
        found[check_id].append(name)
    return found
