vendor = 'kunlunxin'
fp16 = False

dist_backend = "xccl"

training_event = None
