"""One reader module per vendor for ``maps build``: each turns that vendor's published files into the
device map, the API-support list and the per-release aten op map.

Every module offers the same functions: ``device_maps(upstream, curated)`` and
``api_support_maps(upstream, curated)`` (relative output path -> table), ``device_map(release)`` (the device
map an op release uses), ``op_map(upstream, curated, release, universe)`` (``(ops, dtypes, sources)``),
``pairing_rows(upstream)`` (which plugin build to install beside a torch version; empty when no table says)
and ``shim_table(upstream)``.
Adding a vendor is one module here and one entry in ``READERS``.
"""

from . import cann, kunlun, neuware

READERS = {"cann": cann, "neuware": neuware, "kunlun": kunlun}
