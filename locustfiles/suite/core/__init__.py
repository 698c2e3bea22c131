"""What every layer reads, standard library and ``common`` only (so that `make help` runs before
the virtualenv exists): the plan, the catalogue of profiles, histograms, thresholds, the names
the layers share, refusals, the learners' settings and words for numbers."""
