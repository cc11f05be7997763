# DDP type: 'apex' or 'native'.
ddp_type: str = "native"
dist_backend = "xccl"

# disable fp16
fp16 = True

vendor = 'kunlunxin'
