"""Running a load test: the command line (cli, `python -m locustfiles.suite.run`), the Locust
wiring (hooks), the run object of every Locust process (session) and of the one that keeps the
results (keeper)."""
