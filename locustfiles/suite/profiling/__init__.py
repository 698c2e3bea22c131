"""make profile: py-spy recordings per process group (pyspy) and their flame graphs."""
