"""Long runs: the suite trims Locust's per-second bookkeeping so the master stays small."""

import time

from locust.env import Environment

from locustfiles.suite.run import session


def test_per_second_counts_and_chart_history_are_trimmed():
    environment = Environment()
    runner = environment.create_local_runner()
    stats = runner.stats
    now = int(time.time())
    entry = stats.get("/api/commerce/v0/baskets/", "POST")
    for second in range(now - 3600, now):
        entry.num_reqs_per_sec[second] = 3
        entry.num_fail_per_sec[second] = 1
        stats.total.num_reqs_per_sec[second] = 3
    stats.history.extend({"time": i} for i in range(5000))

    session.trim_locust_memory(stats, now)

    assert min(entry.num_reqs_per_sec) >= now - 120 and len(entry.num_reqs_per_sec) == 120
    assert len(entry.num_fail_per_sec) == 120 and len(stats.total.num_reqs_per_sec) == 120
    assert len(stats.history) == 720 and stats.history[-1] == {"time": 4999}
    runner.quit()
