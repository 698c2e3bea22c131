"""python -m lms_stub.bench [--purchases 300] [--warmup 20] [--callgrind]: what a free purchase
costs the LMS stand-in in-process (the package's docstring); one JSON object on the last line.

Needs lms_stub's database (`make up` makes it); ecommerce's side is a stand-in of the bench's own.
"""

# First, as gunicorn's gevent worker does before it loads the application: Django's per-thread
# state (its database connections) is then a greenlet's, and PyMySQL's socket gevent's.
from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

from common import http_client  # noqa: E402
from lms_stub.bench import ecommerce, instructions, purchase  # noqa: E402

# Held still (the package's docstring): set before the settings are read.
STILL = {"LMS_ADMISSION": "in-flight", "LMS_FAULT_REFRESH_SECONDS": "3600"}


def arguments():
    parser = argparse.ArgumentParser(prog="python -m lms_stub.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--purchases", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="instructions per purchase and per call instead: the bench under valgrind's callgrind, twice",
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile's statistics of the measured purchases")
    parser.add_argument("--marks", action="store_true", help=argparse.SUPPRESS)  # the run callgrind counts
    args = parser.parse_args()
    if args.purchases < 1 or args.warmup < 1:
        parser.error("--purchases and --warmup must be at least 1")
    return args


def main() -> int:
    args = arguments()
    if args.callgrind:
        result = instructions.count(args.purchases, args.warmup)
        print(json.dumps(result, sort_keys=True))
        return 0 if result["agree"] else 1
    os.environ.update(STILL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings.lms_stub")
    http_client.IDLE_SECONDS = 3600.0
    with ecommerce.running() as url:
        os.environ["ECOMMERCE_URL"] = url
        from django.conf import settings

        from lms_stub.wsgi import application

        if settings.ECOMMERCE_URL != url:
            raise SystemExit(f"ECOMMERCE_URL is {settings.ECOMMERCE_URL}, not the stand-in's {url}")
        gc.freeze()  # as gunicorn's post_worker_init (settings/gunicorn_common.py)
        result = purchase.measure(application, args.purchases, args.warmup, args.marks, args.profile)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
