import logging
import signal
import threading

from django.core.management.base import BaseCommand
from django.db import InterfaceError, OperationalError, close_old_connections, connection

from ecommerce.payment.retention import purge

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Delete refused and failed payment notifications older than NOTIFICATION_RETENTION_DAYS and "
        "Idempotency-Key records older than IDEMPOTENCY_RETENTION_DAYS. Once, or with --loop every "
        "--interval seconds until SIGTERM/SIGINT (the deployment's ecommerce-retention program)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true", help="keep purging until stopped")
        parser.add_argument("--interval", type=float, default=3600, help="seconds between rounds (--loop)")

    def handle(self, *args, loop, interval, **options):
        if not loop:
            self.stdout.write(_said(purge()))
            return
        stopping = threading.Event()  # a signal ends the wait at once
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stopping.set())
        self.stdout.write(f"purging every {interval:g} s")
        while not stopping.is_set():
            done = _round()
            if done is not None:
                self.stdout.write(_said(done))
            stopping.wait(interval)


def _said(deleted: dict[str, int]) -> str:
    return "deleted " + ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in deleted.items())


def _round() -> dict[str, int] | None:
    """One purge, or None when the database could not be reached (the next round tries again)."""
    close_old_connections()
    try:
        return purge()
    except (OperationalError, InterfaceError) as exc:
        logger.warning("retention: database unavailable, retrying next round: %s", exc)
        connection.close()
        return None
