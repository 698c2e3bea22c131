"""What the order service, the LMS stand-in and the load suite share.

Nothing here imports ``ecommerce``, ``lms_stub``, ``locustfiles`` or ``settings``: the three
can each be read, deployed and tested with this package and without the others (``make lint``
checks it with import-linter).
"""
