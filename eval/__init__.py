"""Duplicate evaluation (``python -m eval``), promotion and the league.

Modules: ``deals`` (committed deal sets and their checksums), ``duplicate`` (playing one deal at
two tables, and match chains), ``runner`` (worker processes), ``stats``, ``report``,
``promote``, ``league``.
"""
