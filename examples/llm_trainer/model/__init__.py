from .transformer import TinyGPT

__all__ = ["TinyGPT"]
