"""Train TinyGPT with DDP + AMP on NVIDIA GPUs (launch with scripts/launch.sh)."""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.cuda.amp import GradScaler, autocast as amp_autocast
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from model import TinyGPT

BACKEND = "nccl"


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=8)
    return parser.parse_args()


def setup():
    dist.init_process_group(backend=BACKEND)
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    return local_rank


def main():
    args = parse_args()
    local_rank = setup()
    device = torch.device("cuda", local_rank)
    model = TinyGPT().cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    scaler = GradScaler()
    data = torch.randint(0, 32000, (1024, 129))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler, pin_memory=True, num_workers=2)
    start = time.time()
    for step, batch in enumerate(loader):
        batch = batch.to(device, non_blocking=True)
        with amp_autocast(dtype=torch.float16):
            _, loss = model(batch[:, :-1], batch[:, 1:])
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if step % 100 == 0 and local_rank == 0:
            torch.cuda.synchronize()
            mem = torch.cuda.max_memory_allocated() / 2**30
            print(f"step {step} loss {loss.item():.3f} mem {mem:.1f} GiB on cuda, {time.time() - start:.1f}s")
        if step >= args.steps:
            break
    if local_rank == 0:
        torch.save(model.module.state_dict(), "ckpt.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
