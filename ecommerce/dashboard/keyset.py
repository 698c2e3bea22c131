"""Keyset ("newer / older") pagination: a page is the rows just past a cursor row, fetched as
page size + 1 so that whether another page follows is known without counting anything.

The cursor is a row's primary key in the URL; its sort values are read back by that key, so a
page costs one primary-key lookup and one index range read of page size + 1 rows, at any depth
and any table size. ``page`` in the URL is only the label a reader walked to, never an offset.

A page is read in two statements: the keys alone from the index, then the rows (with the joins
the list shows) by those keys. Asked as one statement with the joins, MariaDB 10.11 served a
status and a date range with a ``ref`` on the status alone, walking every newer order of that
status before the range began (1.7 s for one page at 4 M orders); the keys alone take the range
of the (status, date_placed) index (ecommerce/fulfillment/migrations/0002_order_status_index.py).
"""

import functools
import re
from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.http import Http404, QueryDict

OLDER, NEWER, PAGE = "before", "after", "page"
# A row id as a cursor, and a page number: ASCII digits, short enough for a BIGINT and for int().
CURSOR = re.compile(r"[0-9]{1,18}\Z")
PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,8}\Z")


@dataclass
class KeysetPage:
    rows: list
    number: int
    older_query: str | None  # the query string of the next page down, None on the last
    newer_query: str | None  # the query string of the page above, None on the first


def past(fields: tuple[str, ...], values: tuple, lookup: str) -> Q:
    """Rows strictly past ``values`` in the order of ``fields`` (``lookup`` "lt" walks down,
    "gt" up). The leading field is also bounded on its own so that the database reads a range
    of its index rather than filtering a scan."""
    first, *rest = fields
    bound = Q(**{f"{first}__{lookup}e": values[0]})
    beyond = Q(**{f"{first}__{lookup}": values[0]})
    if rest:
        beyond |= Q(**{first: values[0], f"{rest[0]}__{lookup}": values[1]})
    return bound & beyond


def keyset_page(queryset: QuerySet, fields: tuple[str, ...], params: QueryDict, size: int) -> KeysetPage:
    """The page of ``queryset`` (newest first: descending ``fields``, the last of them unique)
    that ``params`` point at: none of before/after is the first page."""
    cursor, lookup = (params.get(OLDER), "lt") if params.get(OLDER) else (params.get(NEWER), "gt")
    if not cursor:
        return _first_page(queryset, fields, params, size)
    if not CURSOR.match(cursor):  # ASCII digits only: "²".isdigit() is true, int("²") fails
        raise Http404("The page cursor is not an id.")
    values = queryset.model._default_manager.filter(pk=cursor).values_list(*fields).first()
    if values is None:
        raise Http404("The page cursor names no row.")
    number = max(_page_label(params), 2)  # the label the link carried; past a cursor is never page 1
    if lookup == "lt":
        rows = _rows(queryset.filter(past(fields, values, "lt")), _descending(fields), size + 1)
        return _page(rows[:size], number, params, older=len(rows) > size, newer=True)
    rows = _rows(queryset.filter(past(fields, values, "gt")), fields, size + 1)
    if len(rows) <= size:  # nothing newer than these: that is the first page
        return _first_page(queryset, fields, params, size)
    return _page(rows[:size][::-1], number, params, older=True, newer=True)


def _first_page(queryset, fields, params, size) -> KeysetPage:
    rows = _rows(queryset, _descending(fields), size + 1)
    return _page(rows[:size], 1, params, older=len(rows) > size, newer=False)


def _rows(queryset: QuerySet, ordering, limit: int) -> list:
    """The first ``limit`` rows of ``queryset`` in ``ordering``: their keys from the index, then
    the rows (with the queryset's joins and prefetches) by key, in the same order."""
    keys = list(queryset.order_by(*ordering).values_list("pk", flat=True)[:limit])
    by_key = queryset.order_by().in_bulk(keys)
    return [by_key[key] for key in keys]


def _page(rows, number, params, older: bool, newer: bool) -> KeysetPage:
    return KeysetPage(
        rows=rows,
        number=number,
        older_query=_query(params, OLDER, rows[-1].pk, number + 1) if older and rows else None,
        newer_query=_query(params, NEWER, rows[0].pk, number - 1) if newer and rows else None,
    )


def _query(params: QueryDict, direction: str, pk, number: int) -> str:
    """The other parameters as they were, then the cursor, then the page label last."""
    query = params.copy()
    for name in (OLDER, NEWER, PAGE):
        query.pop(name, None)
    query[direction] = str(pk)
    query[PAGE] = str(number)
    return query.urlencode()


def _page_label(params: QueryDict) -> int:
    """The page number the link carried (dashboard_urls refuses a malformed one before here)."""
    value = params.get(PAGE, "")
    return int(value) if PAGE_NUMBER.match(value) else 1


def _descending(fields):
    return [f"-{name}" for name in fields]


def refuses_malformed_page(view):
    """``view``, answering 404 when the request's ``page`` is not a page number (``²``, ``abc``,
    ``-1``, ``0``, thousands of digits) instead of whatever the view would make of it: a keyset
    label, Django's paginator or django-tables2's (which fall back to page 1 or fail)."""

    @functools.wraps(view)
    def checked(request, *args, **kwargs):
        page = request.GET.get(PAGE)
        if page is not None and not PAGE_NUMBER.match(page):
            raise Http404("The page number is not a whole number of at least 1.")
        return view(request, *args, **kwargs)

    return checked
