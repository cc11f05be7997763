__all__ = [
    "NpuFusedOptimizerBase", "NpuFusedSGD", "NpuFusedAdadelta", "NpuFusedLamb",
    "NpuFusedAdam", "NpuFusedAdamW", "NpuFusedAdamP",
    "NpuFusedBertAdam", "NpuFusedRMSprop", "NpuFusedRMSpropTF",
]

from .npu_fused_optim_base import NpuFusedOptimizerBase
from .npu_fused_sgd import NpuFusedSGD
from .npu_fused_adadelta import NpuFusedAdadelta
from .npu_fused_lamb import NpuFusedLamb
from .npu_fused_adam import NpuFusedAdam
from .npu_fused_adamw import NpuFusedAdamW
from .npu_fused_adamp import NpuFusedAdamP
from .npu_fused_bert_adam import NpuFusedBertAdam
from .npu_fused_rmsprop import NpuFusedRMSprop
from .npu_fused_rmsprop_tf import NpuFusedRMSpropTF
from .distributed_muon import _DistributedMuon
