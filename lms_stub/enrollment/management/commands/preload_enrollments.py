"""lms_stub's half of the bulk preload: per purchase, the learner auto_auth created (logged in
at the purchase) and the enrollment ecommerce's fulfilment wrote. One transaction per batch;
run by ``make preload`` (locustfiles/suite/tools/preload.py) beside ecommerce's preload_orders."""

from django.contrib.auth import get_user_model
from django.db import transaction

from common.contract import preload_plan as plan
from common.contract.courses import free_seats
from common.preload_command import PreloadCommand
from lms_stub.enrollment.models import Enrollment

User = get_user_model()
COURSES_TABLE = "preload_course"


class Command(PreloadCommand):
    help = "Write learners and enrollments in bulk (run by `make preload`); --status says how many are here."

    def prepare(self, cursor, options):
        course_table(cursor, options["courses"] or 0)

    def write_batch(self, cursor, first_index, count, options):
        write_batch(cursor, first_index, count, options)


def course_table(cursor, courses: int) -> None:
    cursor.execute(f"DROP TEMPORARY TABLE IF EXISTS {COURSES_TABLE}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {COURSES_TABLE} "
        "(course INT PRIMARY KEY, course_id VARCHAR(255), mode VARCHAR(50))"
    )
    cursor.executemany(
        f"INSERT INTO {COURSES_TABLE} VALUES (%s, %s, %s)",
        [(seat.number, seat.course_id, seat.mode) for seat in free_seats(courses)],
    )


def write_batch(cursor, first_index: int, count: int, options) -> None:
    purchases = plan.purchases_sql(first_index, count, options)
    with transaction.atomic():
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {User._meta.db_table}")
        user_id = cursor.fetchone()[0]
        cursor.execute(
            f"INSERT INTO {User._meta.db_table} (id, password, last_login, is_superuser, username, "
            "first_name, last_name, email, is_staff, is_active, date_joined) "
            f"SELECT {user_id} + p.seq, CONCAT('!', SHA1(CONCAT('preload-lms-', p.i))), p.at, 0, p.name, "
            f"'', '', CONCAT(p.name, '@example.com'), 0, 1, p.at FROM {purchases} AS p"
        )
        cursor.execute(
            f"INSERT INTO {Enrollment._meta.db_table} (user, course_id, mode, is_active, created) "
            f"SELECT p.name, c.course_id, c.mode, 1, p.at FROM {purchases} AS p "
            f"JOIN {COURSES_TABLE} AS c ON c.course = p.course ORDER BY p.seq"
        )
