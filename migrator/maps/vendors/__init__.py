"""One reader module per vendor for ``maps build``: each turns that vendor's published files into the
device map, the API-support list and the per-release aten op map.

Every module offers the same four functions: ``device_maps(upstream, curated)`` and
``api_support_maps(upstream, curated)`` (relative output path -> table), ``device_map(release)`` (the device
map an op release uses) and ``op_map(upstream, curated, release, universe)`` (``(ops, dtypes, sources)``).
Adding a vendor is one module here and one entry in ``READERS``.
"""

from . import cann, kunlun, neuware

READERS = {"cann": cann, "neuware": neuware, "kunlun": kunlun}
