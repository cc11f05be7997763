"""Every other torch API use: judged by the aten ops it runs on each target (the operator maps)."""

from __future__ import annotations
