"""The wire contract between the LMS stand-in, the order service and the load suite: what one
side sends and the other reads. Plain Python, no Django: the load suite may know this much of
the services and nothing more.

* ``courses``       the seeded catalogue: course ids, seat SKUs and prices
* ``preload_plan``  what the bulk preload writes for purchase i, in both databases
* ``statuses``      order and line status names, their allowed transitions, and what became of
                    a payment notification
* ``errors``        the JSON error shape, its codes, and the messages both services give
* ``paths``         the HTTP paths each service answers
* ``tokens``        the learner JWT the LMS signs for the order API
* ``cybersource``   the payment processor's signed checkout form and notification
* ``health``        the health answer of both services
* ``server_timing`` reading the Server-Timing header both services send
"""
