"""Fleet scans: many repositories, one task each on Dask distributed, one portfolio plan.

The pipeline: ``task`` scans one repository in a child process (its own timeout, its own crash) and reduces
its ``migrator.report/1`` document to a ``RepoRow`` (``summary``); ``run`` spreads the tasks over a Dask
cluster (a ``LocalCluster`` unless a scheduler address is given); ``portfolio`` joins the rows into the
cross-repository ranking; ``render`` writes it as text, ``migrator.fleet/1`` JSON or one HTML page.
"""
