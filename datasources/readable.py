"""The ids of the datasources whose data a user may read, asked once per read-only request.

Every list page filters its rows by them (`reading_only_readable`), some twice or three times
(an incident is judged by its check and by its results' runs). Within one GET the answer cannot
change, so `ReadableOncePerRequest` (a middleware) keeps it for the request's duration; outside
a request (workers, commands, tests calling the models) and in requests that write, it is asked
afresh every time, so a change of groups is seen at once.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

_remembered: ContextVar[dict | None] = ContextVar("readable_datasource_ids", default=None)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@contextmanager
def remembered_while():
    """Within this block, each user's readable ids are fetched at most once."""
    token = _remembered.set({})
    try:
        yield
    finally:
        _remembered.reset(token)


def readable_ids(user, fetch) -> list[int]:
    """`fetch()` (the query) the first time in a block for this user, the same list after."""
    memo = _remembered.get()
    if memo is None:
        return fetch()
    if user.pk not in memo:
        memo[user.pk] = fetch()
    return memo[user.pk]


class ReadableOncePerRequest:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method not in SAFE_METHODS:
            return self.get_response(request)
        with remembered_while():
            return self.get_response(request)
