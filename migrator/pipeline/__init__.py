"""The scan as a pipeline of stages, one module each (``flow.py`` composes them); see docs/architecture.md."""

from .flow import scan, scan_with_graph
from .request import Exclude, Progress, ScanRequest, Trace, without_excluded

__all__ = ["Exclude", "Progress", "ScanRequest", "Trace", "scan", "scan_with_graph", "without_excluded"]
