import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from common import calibration
from ecommerce.orders import instructions
from ecommerce.orders.benchmark import measure


class Command(BaseCommand):
    help = (
        "Measure a one-seat checkout with fulfilment in-process (the LMS must be up): queries, "
        "commits, row-lock waits, connections opened and CPU per order; with --paid, a paid seat "
        "paid through the processor's notification; CPU per order also in calibration units (cal: "
        "the machine's calibration, taken before and after the orders). The last line of output is "
        "one JSON object."
    )

    def add_arguments(self, parser):
        parser.add_argument("--orders", type=int, default=200)
        parser.add_argument("--warmup", type=int, default=20)
        parser.add_argument("--courses", type=int, default=1, help="spread orders over N seats")
        parser.add_argument("--json", action="store_true", help="print only the JSON line")
        parser.add_argument(
            "--paid",
            action="store_true",
            help="a paid seat: the paid checkout, then the processor's ACCEPT notification that places "
            "and fulfils the order (figures per purchase, and per request)",
        )
        parser.add_argument(
            "--callgrind",
            action="store_true",
            help="instructions per order instead: the bench under valgrind's callgrind, twice (the bench "
            "process only; MariaDB's server side and lms_stub are not counted)",
        )
        # The run callgrind counts: the measured orders marked out, no calibration.
        parser.add_argument("--marks", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args, orders, warmup, courses, json: bool, paid: bool, callgrind, marks, **options):
        if orders < 1 or courses < 1:
            raise CommandError("--orders and --courses must be at least 1")
        if callgrind:
            return self.count(orders, warmup, courses, paid, json)
        result = measure(
            orders=orders, warmup=warmup, courses=courses, paid=paid, calibrate=not marks, marks=marks
        )
        if result["failures"]:
            self.stderr.write(f"{result['failures']} of {orders} orders did not complete; is the LMS up?")
        if not json:
            for key, value in result.items():
                self.stdout.write(f"{key:>34}: {value}")
        if not marks:
            self.beside(calibrated(result), json)
        self.stdout.write(_dumps(result))

    def count(self, orders: int, warmup: int, courses: int, paid: bool, json: bool) -> None:
        try:
            result = instructions.count(orders, warmup, courses, paid)
        except instructions.CountFailed as exc:
            raise CommandError(str(exc)) from exc
        runs = " and ".join(f"{n:,}" for n in result["instructions_per_order_runs"])
        per_order = f"{result['instructions_per_order']:,}"
        apart = f"{result['spread_pct']} % apart"
        self.beside(f"Instructions per order: {per_order} (runs: {runs}, {apart}); {result['counted']}", json)
        self.stdout.write(_dumps(result))
        if not result["agree"]:
            raise CommandError(
                f"the two runs differ by more than {instructions.AGREE_PCT} %: not a count to trust"
            )

    def beside(self, line: str, json: bool) -> None:
        """A line in words beside the JSON line; with --json on stderr (not in its error
        colour): stdout stays that one line."""
        if json:
            self.stderr.write(line, style_func=str)
        else:
            self.stdout.write(line)


def calibrated(result: dict) -> str:
    """CPU per order in ms and in calibration units, and the unit in words."""
    sitting = result["calibration"]
    in_units = "" if result["cpu_cal_per_order"] is None else f" = {result['cpu_cal_per_order']} cal"
    return f"CPU per order: {result['cpu_ms_per_order']} ms{in_units}; {calibration.described(sitting)}"


def _dumps(result: dict) -> str:
    return json.dumps(result, sort_keys=True)
