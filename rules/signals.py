"""Signals other apps listen to, so rules never imports them (watching closes a deleted check's
incidents)."""

from django.dispatch import Signal

# Sent in the transaction that soft-deleted a check; `check` is the Check, `by` who deleted it
# (None when the platform did, e.g. a monitor switched off).
check_deleted = Signal()
