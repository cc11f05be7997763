"""The pre-commit / CI gate: ``migrator check`` over changed files, with a baseline and inline suppressions.

One module per concern: ``config`` (``[tool.migrator]`` in pyproject.toml), ``suppress`` (``# migrator:
ignore[...]`` comments), ``baseline`` (known findings, matched by fingerprint), ``check`` (the run itself,
a frozen ``CheckResult``) and ``output`` (how a result is printed, in every report format).
"""
