"""The floor of one purchase: what its work needs, measured apart from everything else.

A free purchase is four HTTP hops (the learner's GET /auto_auth and POST
/api/commerce/v0/baskets/ to lms_stub, lms_stub's POST /api/v2/baskets/ to ecommerce,
ecommerce's POST /api/enrollment/v1/enrollment back to lms_stub) and the SQL statements each
service runs. Its floor per service is

* the HTTP floor: each hop the service serves, answered by a bare WSGI handler under the
  service's own gunicorn settings (one worker) with the real endpoint's answer, canned
  (``canned``, ``server``, ``hops``), plus the client's side of each hop the service makes;
* the SQL floor: the statements one real purchase ran, captured from MariaDB's general log and
  replayed through the same driver with no framework, on copies of the databases and in a
  transaction rolled back (``statements``, ``replay``): the driver's CPU in the service's row,
  mariadbd's in MariaDB's.

Everything else (the framework, middleware, serialisation, Oscar's machinery, an agent) is the
real CPU per purchase less the floor (``table``). ``make floor`` measures it against a running
stack (``cli``); docs/measuring.md says how to read it.

It knows the services' plumbing (their gunicorn configurations, their HTTP client, their
database settings) but imports neither service; nothing imports it.
"""
