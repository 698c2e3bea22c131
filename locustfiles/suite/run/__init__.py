"""Running a load test: the command line (cli, `python -m locustfiles.suite.run`), the Locust
wiring (hooks), the run object of each role, as Locust's runners: a worker's (session), the
local runner's and the master's (roles), which share the keeping of results (keeper), the
summary it writes (summary) and its run folder (folder)."""
