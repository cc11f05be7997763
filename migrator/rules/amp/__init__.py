"""Mixed precision: ``torch.cuda.amp.*`` in every import form, and autocast / GradScaler on ``"cuda"``."""

from __future__ import annotations
