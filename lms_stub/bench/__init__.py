"""What a free purchase costs the LMS stand-in, in-process: `make bench-lms` (python -m lms_stub.bench).

A free purchase makes three calls at the LMS: the learner's login (GET /auto_auth), the learner's
basket (POST /api/commerce/v0/baskets/, which lms_stub forwards to ecommerce's order API), and
the enrollment write ecommerce calls back while it fulfils the order (POST
/api/enrollment/v1/enrollment). The bench makes them as gunicorn's gevent worker would run them,
without the server: the process is patched by gevent first and loads the WSGI application
(lms_stub/wsgi.py) as a worker does; each call is a WSGI call with the environ gunicorn builds,
its answer read whole and closed (which ends the request as a server does). The learner's two
calls run in a greenlet of their own, as a new client connection's would (every learner of a
load run is a new client: Django's connection to MariaDB is then a new one too, from the pool);
the enrollment calls in one greenlet that lives on, as ecommerce's kept-alive connection's.

ecommerce's side of the basket is a stand-in (``ecommerce.py``, another process, so not counted):
it answers the order API with the canned answer of a completed order and does not call back; the
bench makes the enrollment call itself, for the learner who just bought.

The figures: CPU per purchase and per call (ms, the weather's: secondary), or, under valgrind's
callgrind (``--callgrind``: ``instructions.py``), instructions per purchase and per call, which
do not drift. Held still for a count that repeats (and set in both, so that they measure the same
path): the admission policy is ``in-flight`` (queue-delay's sampler wakes every 10 ms of a clock
that valgrind slows fifty times), the fault settings are read once per worker in the warm-up, not
every LMS_FAULT_REFRESH_SECONDS, and a kept-alive connection to ecommerce is not retired after
http_client.IDLE_SECONDS: natively each of these is spread over many purchases.
"""
