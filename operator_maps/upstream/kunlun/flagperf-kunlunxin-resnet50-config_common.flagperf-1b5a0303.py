# DDP type: 'apex' or 'native'.
vendor: str = "kunlunxin"
dist_backend = "xccl"
ddp_type: str = "native"
