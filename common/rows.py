"""Reading one row by a unique column without the ORM's query building.

The ORM composes a statement anew for every ``Model.objects.get(...)``: about 0.5 ms of CPU
here, more than the round trip to MariaDB. The request paths read a few rows on every request
(the learner behind a token); those reads go through ``by_unique``, whose statement is composed
once per model and column. The instance is made as the ORM makes it: the field converters
applied to the row's values, then ``Model.from_db``.
"""

import functools

from django.db import connection


@functools.cache
def _select(model, field_name: str) -> str:
    quote = connection.ops.quote_name
    column = model._meta.get_field(field_name).column
    return f"SELECT {columns(model, 't')} FROM {quote(model._meta.db_table)} t WHERE t.{quote(column)} = %s"


@functools.cache
def _converters(model) -> list[tuple[int, list, object]]:
    """Per concrete field of ``model`` that needs them, the converters the ORM applies to the
    value a row holds (MariaDB's datetimes get their time zone, its 0/1 become booleans, ...)."""
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if converters:
            found.append((index, converters, column))
    return found


def make(model, values) -> object:
    """A ``model`` instance from a row holding its concrete fields' values in their order, the
    ORM's converters applied, as the ORM makes one."""
    values = list(values)
    for index, converters, column in _converters(model):
        value = values[index]
        for convert in converters:
            value = convert(value, column, connection)
        values[index] = value
    return model.from_db(connection.alias, [f.attname for f in model._meta.concrete_fields], values)


def columns(model, alias: str) -> str:
    """``model``'s concrete fields' columns under the table alias ``alias``, in make()'s order."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(f.column)}" for f in model._meta.concrete_fields)


def by_unique(model, field_name: str, value):
    """The ``model`` instance whose ``field_name`` (a unique field) is ``value``, or None."""
    if not model._meta.get_field(field_name).unique:
        raise ValueError(f"{model.__name__}.{field_name} is not unique")
    sql = _select(model, field_name)
    with connection.cursor() as cursor:
        cursor.execute(sql, [value])
        row = cursor.fetchone()
    return None if row is None else make(model, row)
