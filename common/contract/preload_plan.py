"""What the bulk preload writes for purchase number i: the one definition both services read.

The preload (``make preload ORDERS=N``) writes in each database, with one INSERT ... SELECT per
table per batch, what N purchases through the full loop leave behind. ecommerce and lms_stub
write their halves in two processes at once, so each must derive the same learner, course and
moment from i alone. Each rule is here twice, as Python (for tests and for reading back) and as
a MariaDB expression over an index column (for the INSERTs); tests hold the two equal.

* Purchase i is bought by learner i, a fresh learner, as in the load suite (and edX's 2015
  suite): one learner per purchase. Learner names have the format of auto_auth's
  (``learner_`` and 16 hex digits), counted up from a fixed base, so a preloaded learner is
  found by name and the preload's progress is the highest such name in a database.
* The course is spread evenly over the catalogue by a multiplier prime to any catalogue size
  below it.
* Purchases are ``SPACING_US`` apart: 1038 per minute, the rate the 10-minute soak held, at
  which 4 M purchases take 64 hours, as edX's 2015 soak did.

This module is plain Python: importing it loads no Django app.
"""

from datetime import datetime, timedelta

NAME_PREFIX = "learner_"
# "PRELOAD\0" in ASCII: auto_auth draws its 16 hex digits at random, so a clash with a real
# learner is as likely as guessing a 64-bit number.
NAME_BASE = 0x5052454C4F414400
NAME_DIGITS = 16
# The preloaded learners' names share this prefix while i stays below 2**32.
NAME_RANGE_PREFIX = NAME_PREFIX + f"{NAME_BASE:016x}"[:8]
COURSE_MULTIPLIER = 7919
RPM = 1038
SPACING_US = round(60_000_000 / RPM)


def username(i: int) -> str:
    return f"{NAME_PREFIX}{NAME_BASE + i:0{NAME_DIGITS}x}"


def index_of(name: str) -> int | None:
    """The purchase number of a preloaded learner's name; None for any other name."""
    if not name.startswith(NAME_RANGE_PREFIX) or len(name) != len(NAME_PREFIX) + NAME_DIGITS:
        return None
    return int(name[len(NAME_PREFIX) :], 16) - NAME_BASE


def course_number(i: int, courses: int) -> int:
    return 1 + (i * COURSE_MULTIPLIER) % courses


def placed(i: int, first: int, start: datetime, spacing_us: int = SPACING_US) -> datetime:
    """Purchase i's moment: ``start`` is the moment of purchase ``first``."""
    return start + timedelta(microseconds=(i - first) * spacing_us)


def username_sql(i: str) -> str:
    return f"CONCAT('{NAME_PREFIX}', LOWER(LPAD(HEX({NAME_BASE} + {i}), {NAME_DIGITS}, '0')))"


def course_number_sql(i: str, courses: int) -> str:
    return f"(1 + MOD({i} * {COURSE_MULTIPLIER}, {int(courses)}))"


def placed_sql(i: str, first: int, start: datetime, spacing_us: int = SPACING_US) -> str:
    moment = start.strftime("%Y-%m-%d %H:%M:%S.%f")
    offset = f"({i} - {int(first)}) * {int(spacing_us)}"
    return f"CAST(TIMESTAMPADD(MICROSECOND, {offset}, '{moment}') AS DATETIME(6))"


def purchases_sql(first_index: int, count: int, options: dict) -> str:
    """A derived table of purchases ``first_index`` .. ``first_index + count - 1``: columns
    seq (1..count), i, name, at and course, from MariaDB's SEQUENCE engine; ``options`` are
    the command's (first, start, spacing_us, courses)."""
    at = placed_sql("i", options["first"], options["start"], options["spacing_us"])
    courses = options["courses"]
    return (
        f"(SELECT seq, i, {username_sql('i')} AS name, {at} AS at, "
        f"{course_number_sql('i', courses)} AS course "
        f"FROM (SELECT seq, {int(first_index) - 1} + seq AS i FROM seq_1_to_{int(count)}) AS numbered)"
    )


def add_arguments(parser) -> None:
    """The arguments both services' preload commands take (the suite's preload passes them)."""
    parser.add_argument("--status", action="store_true", help="print what is preloaded and stop")
    parser.add_argument("--total", type=int, help="purchases wanted in all")
    parser.add_argument("--first", type=int, help="the purchase whose moment --start is")
    parser.add_argument("--start", type=datetime.fromisoformat, help="moment of purchase --first (UTC)")
    parser.add_argument(
        "--spacing-us", type=int, default=SPACING_US, help="microseconds between two purchases"
    )
    parser.add_argument("--courses", type=int, help="spread the purchases over the first N courses")
    parser.add_argument("--batch", type=int, default=50_000, help="purchases per transaction")


def status_line(done: int, last_placed: datetime | None) -> dict:
    """What a preload command prints for --status: the highest purchase number present and
    its moment."""
    return {"done": done, "last_placed": last_placed.isoformat() if last_placed else None}


def progress(users) -> tuple[int, datetime | None]:
    """The highest preloaded purchase number in a database and its moment, from its users (a
    Django queryset of the user model): one backward step on the username index."""
    user = (
        users.filter(username__gte=NAME_RANGE_PREFIX, username__lt=NAME_RANGE_PREFIX + "g")
        .order_by("-username")
        .values_list("username", "date_joined")
        .first()
    )
    if user is None:
        return 0, None
    return index_of(user[0]) or 0, user[1]


def run_batches(done: int, options: dict, write_batch, report) -> int:
    """Write purchases done+1 .. total in batches of options['batch'], each by
    ``write_batch(first_index, count)`` in one transaction; ``report(dict)`` after each."""
    total, batch = options["total"], options["batch"]
    if None in (total, options["first"], options["start"], options["courses"]):
        raise ValueError("--total, --first, --start and --courses are all needed to preload")
    if batch < 1 or options["courses"] < 1 or options["spacing_us"] < 1:
        raise ValueError("--batch, --courses and --spacing-us must be at least 1")
    while done < total:
        count = min(batch, total - done)
        write_batch(done + 1, count)
        done += count
        report({"done": done, "written": count})
    return done
