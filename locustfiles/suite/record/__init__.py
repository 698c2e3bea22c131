"""What a run records: the requests (recorder), the servers' readings (sampler), the load
balancer's counters (balancer) and the run's provenance."""
