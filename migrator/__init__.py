"""migrator: how ready PyTorch CUDA training code is for Ascend, Cambricon and Kunlunxin."""

__version__ = "0.2.0"
