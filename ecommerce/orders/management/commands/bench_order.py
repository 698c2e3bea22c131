import json

from django.core.management.base import BaseCommand, CommandError

from common import calibration
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

    def handle(self, *args, orders, warmup, courses, json: bool, paid: bool, **options):
        if orders < 1 or courses < 1:
            raise CommandError("--orders and --courses must be at least 1")
        result = measure(orders=orders, warmup=warmup, courses=courses, paid=paid)
        if result["failures"]:
            self.stderr.write(f"{result['failures']} of {orders} orders did not complete; is the LMS up?")
        if not json:
            for key, value in result.items():
                self.stdout.write(f"{key:>34}: {value}")
        # Beside the JSON line; with --json on stderr (not in its error colour): stdout stays that line.
        if json:
            self.stderr.write(calibrated(result), style_func=str)
        else:
            self.stdout.write(calibrated(result))
        self.stdout.write(_dumps(result))


def calibrated(result: dict) -> str:
    """CPU per order in ms and in calibration units, and the unit in words."""
    sitting = result["calibration"]
    in_units = "" if result["cpu_cal_per_order"] is None else f" = {result['cpu_cal_per_order']} cal"
    return f"CPU per order: {result['cpu_ms_per_order']} ms{in_units}; {calibration.described(sitting)}"


def _dumps(result: dict) -> str:
    return json.dumps(result, sort_keys=True)
