"""Reaching the system under test: its services (start, stop, settings), the management commands,
the hosts' sizing and the suite's MySQL connection."""
