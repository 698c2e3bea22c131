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


def insert_or_find(instance, unique_field: str) -> bool:
    """INSERT ``instance`` (not saved yet), or find the row that already holds its
    ``unique_field`` value, in one statement that cannot fail on that key. True when inserted
    (``instance`` then has its primary key), False when the row was there (a concurrent
    request's, committed before this one could insert). No model signals are sent, as for
    bulk_create."""
    model = type(instance)
    meta = model._meta
    if not meta.get_field(unique_field).unique:
        raise ValueError(f"{model.__name__}.{unique_field} is not unique")
    quote = connection.ops.quote_name
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    pk = quote(meta.pk.column)
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) "
        f"ON DUPLICATE KEY UPDATE {pk} = {pk}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        # The affected-row count cannot tell (Django connects with CLIENT_FOUND_ROWS, so a row
        # found counts 1 like a row inserted); the id generated can: none when the row was there.
        inserted = bool(cursor.lastrowid)
        if inserted:
            setattr(instance, meta.pk.attname, cursor.lastrowid)
            instance._state.adding, instance._state.db = False, connection.alias
    return inserted


@functools.cache
def _insert(model, count: int, returning: bool) -> str:
    quote = connection.ops.quote_name
    fields = _insert_fields(model)
    row = f"({', '.join(['%s'] * len(fields))})"
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES {', '.join([row] * count)}"
    )
    return sql + f" RETURNING {quote(model._meta.pk.column)}" if returning else sql


@functools.cache
def _insert_fields(model) -> tuple:
    return tuple(f for f in model._meta.concrete_fields if not f.primary_key)


def insert_all(instances, returning_ids: bool = True) -> None:
    """INSERT unsaved ``instances`` of one model in one statement composed once per model and
    number of rows: what ``bulk_create`` does, without composing the statement anew (about a
    third of a millisecond of CPU per call here). Each field's value is prepared as the ORM
    prepares it (``pre_save``: an ``auto_now_add`` date is set on the instance). With
    ``returning_ids`` each instance gets its primary key (``RETURNING``, in the rows' order);
    without, the instances stay without one. No model signals are sent, as for bulk_create."""
    if not instances:
        return
    model: type = type(instances[0])
    if any(type(instance) is not model for instance in instances):
        raise ValueError("insert_all takes instances of one model")
    fields = _insert_fields(model)
    values = [
        f.get_db_prep_save(f.pre_save(instance, True), connection) for instance in instances for f in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(_insert(model, len(instances), returning_ids), values)
        if returning_ids:
            ids = [row[0] for row in cursor.fetchall()]
            if len(ids) != len(instances):
                raise RuntimeError(f"{len(instances)} rows inserted, {len(ids)} ids returned")
    for index, instance in enumerate(instances):
        if returning_ids:
            setattr(instance, instance._meta.pk.attname, ids[index])
        instance._state.adding, instance._state.db = False, connection.alias
