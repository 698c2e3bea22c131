"""Running a load test: the command line (cli, `python -m locustfiles.suite.run`), the Locust
wiring (hooks), the run object of each role, as Locust's runners: a worker's (session), the
local runner's and the master's (roles), which share the keeping of results (keeper: its step
watch, its end and the web UI's wiring are watch, finish and cockpit), the summary it writes
(summary) and its run folder (folder)."""
