"""Pure functions over recorded rows: the report's rows (results), CPU per purchase (cpu), the
scalability fit, the 2015 client's figures."""
