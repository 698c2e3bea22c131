"""Was anything lost, and what does the run say: the databases' facts, the "nothing lost" audit,
the findings, the noise floor."""
