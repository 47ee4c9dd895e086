"""Reproducible benchmarks: ``python -m bench NAME [--json]``; with --json the last line is one JSON object."""
