import logging
import signal
import threading

from django.core.management.base import BaseCommand
from django.db import InterfaceError, OperationalError, close_old_connections, connection

from common.environment import get
from ecommerce.counters.rollup import fold, fold_all


class Command(BaseCommand):
    help = (
        "Fold waiting purchase events into Oscar's product records (num_purchases). Once, or "
        "with --loop every --interval seconds until SIGTERM/SIGINT."
    )

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true", help="keep folding until stopped")
        parser.add_argument(
            "--interval", type=float, default=get("ROLLUP_INTERVAL"), help="seconds between rounds (--loop)"
        )
        parser.add_argument("--batch", type=int, default=1000, help="events per transaction")

    def handle(self, *args, loop, interval, batch, **options):
        if not loop:
            self.stdout.write(f"folded {fold_all(batch)} purchase events")
            return
        # An Event, not a flag and time.sleep: a signal's handler sets it and ends the wait at
        # once (time.sleep would finish its interval first, a second of every `make down`).
        stopping = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stopping.set())
        self.stdout.write(f"folding purchase events every {interval:g} s")
        self.stdout.flush()  # a pipe's reader (supervisor's log, a test) sees it now, not at exit
        while not stopping.is_set():
            folded = fold_round(batch)
            if folded is None or folded < batch:
                stopping.wait(interval)
        self.stdout.write(f"stopped; folded the last {fold_all(batch)} events")


logger = logging.getLogger(__name__)


def fold_round(batch: int) -> int | None:
    """One round of the loop: the events folded, or None when the database could not be
    reached (MariaDB restarting); the loop keeps going and the events wait for the next round."""
    close_old_connections()
    try:
        return fold(batch)
    except (OperationalError, InterfaceError) as exc:
        logger.warning("rollup: database unavailable, retrying: %s", exc)
        try:  # a fresh connection next round
            connection.close()
        except (OperationalError, InterfaceError):
            pass
        return None
