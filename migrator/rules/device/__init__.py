"""Device placement: ``.cuda()``, ``.to('cuda')``, ``device=`` arguments, ``torch.cuda.*`` and backend flags."""


from __future__ import annotations

DEVICE_KEYWORDS = ("device", "device_type", "map_location", "device_id", "pin_memory_device", "device_types")


