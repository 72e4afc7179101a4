"""The one paging of every list endpoint: `?page=&page_size=` → `{"count", "next", "previous", "results"}`.

Set as DRF's DEFAULT_PAGINATION_CLASS, so checks, runs, results, datasources, rule templates and
comparison types all page the same way (the browser app's TablePager and `fetchAllPages` read
this shape). Bad numbers answer 400 with the field that is wrong instead of DRF's silent
fallback to the default size; a page past the last one is DRF's 404 ("Invalid page."), which
says the list got shorter since the caller counted it.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from dq_platform.ids import as_id

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


def _whole_number(raw: str, name: str, maximum: int | None = None) -> int:
    text = raw.strip()
    if as_id(text) is None or (maximum is not None and int(text) > maximum):
        if maximum is not None:
            message = _("A whole number from 1 to %(maximum)s; got %(value)s.") % {
                "maximum": maximum,
                "value": repr(raw),
            }
        else:
            message = _("A whole number from 1 or more; got %(value)s.") % {"value": repr(raw)}
        raise ValidationError({name: [message]})
    return int(text)


class Pages(PageNumberPagination):
    page_size = DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        return _whole_number(raw, self.page_size_query_param, self.max_page_size)

    def paginate_queryset(self, queryset, request, view=None):
        # Other APIs' paging words: silently ignoring `?limit=-1` would hand back a page of a size
        # the caller did not ask for.
        for word in ("limit", "offset"):
            if word in request.query_params:
                raise ValidationError(
                    {
                        word: [
                            _("Not a parameter of this API: page with ?page= and ?page_size= (1 to %(maximum)s).")
                            % {"maximum": self.max_page_size}
                        ]
                    }
                )
        raw = request.query_params.get(self.page_query_param)
        if raw not in (None, "", *self.last_page_strings):
            _whole_number(raw, self.page_query_param)  # "abc", "0", "-1": 400 naming `page`
        return super().paginate_queryset(queryset, request, view)


class CountedApart:
    """What a list view hands `Pages` when the rows it shows need joins (a check's name, a
    user's name) that cannot change how many rows there are: the page is read from `rows`, the
    count from `counted`, the same rows without those joins, so counting does not join every
    row of the list."""

    def __init__(self, rows: QuerySet, counted: QuerySet):
        self.rows = rows
        self.counted = counted
        self.ordered = rows.ordered  # Django's paginator warns about an unordered list

    def count(self) -> int:
        return self.counted.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, key):
        return self.rows[key]
