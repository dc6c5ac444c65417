"""No index of the site's own tables only repeats the start of another, or another whole.

An index on (a) is served as well by an index on (a, b), or by a unique one on (a): PostgreSQL
reads that one for a lookup on ``a`` alone. The shorter one is then only written, at every
insert and update of the row: Django gives every foreign key an index of its own, and a field
with ``db_index=True`` gets one (two for text: the second, ``varchar_pattern_ops``, serves
``LIKE``), also when a constraint's or an index's first column is that field. Moves, notices,
push deliveries, ratings and the rest wrote one to two indexes more than they needed, a game one
more whenever a move changes an indexed column such as its deadline (a rematch's link, indexed
besides its unique constraint), and in test runs, where PostgreSQL's statistics lag behind,
the lone index on the notices' status led the planner to read every pending notice's entry for
each turn's notices. Such a field says
``db_index=False`` with a comment naming the index that serves it.
"""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

pytestmark = pytest.mark.django_db

# Every index of these tables: its table, name, columns in order, whether it is unique or
# partial, and its definition.
INDEXES = """
    SELECT t.relname, x.relname, ARRAY(
               SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
               ORDER BY k.n
           ),
           i.indisunique, i.indpred IS NOT NULL, pg_get_indexdef(i.indexrelid)
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_class x ON x.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema() AND t.relname = ANY(%s)
"""


def our_tables() -> list[str]:
    """The tables of our apps' models (the many-to-many tables Django makes for the user's
    groups and permissions are Django's)."""
    return [model._meta.db_table for name in ("games", "accounts") for model in
            apps.get_app_config(name).get_models()]  # fmt: skip


def redundant_indexes() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(INDEXES, [our_tables()])
        indexes = cursor.fetchall()
    found = []
    for table, name, columns, unique, partial, definition in indexes:
        if unique or partial:
            continue  # a unique one says more than its columns; a partial one covers less
        like = "pattern_ops" in definition  # serves LIKE, which a plain index of its columns not
        for other_table, other, other_columns, other_unique, other_partial, _d in indexes:
            if other_table != table or other == name or other_partial:
                continue
            if other_columns[: len(columns)] != columns:
                continue
            if len(other_columns) > len(columns):
                found.append(f"{table}: {name}{' (LIKE)' if like else ''} {columns} begins {other}")
            elif other_unique and not like:
                found.append(f"{table}: {name} {columns} is {other} again")
    return sorted(found)


def test_no_index_of_ours_only_repeats_the_start_of_another():
    assert redundant_indexes() == []


def test_the_check_finds_such_an_index():
    with connection.cursor() as cursor:
        cursor.execute("CREATE INDEX test_move_game ON games_move (game_id)")
        cursor.execute("CREATE INDEX test_game_token ON games_game (invite_token)")
    assert redundant_indexes() == [
        "games_game: test_game_token ['invite_token'] is games_game_invite_token_key again",
        "games_move: test_move_game ['game_id'] begins games_move_unique_seq",
    ]
