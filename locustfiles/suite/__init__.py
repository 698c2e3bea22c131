"""The load suite's machinery: exact histograms, run plans, the recorder that feeds them from
Locust's request events (merged across Locust workers), server readings, the "nothing lost"
audit, thresholds, reports and comparisons. The locustfiles beside this package only pick a
profile and a user; everything here can be tested without starting Locust.

Its packages are layers that import one way, lowest first: core → users, stack → record →
figures → verdict → chaos, profiling → profiles → report, tools → run (pyproject.toml's
import-linter contract). A Locust worker imports core, users, the recorder and run.session only.
"""
