#!/usr/bin/env bash
# Single node, 8 GPUs.
set -euo pipefail
nvidia-smi
export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=0
torchrun --nproc_per_node=8 train.py --steps 2000
