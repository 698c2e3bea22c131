"""Commands beside the load runs: make preload and make index-audit."""
