from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="llm_trainer",
    packages=["model"],
    ext_modules=[
        CUDAExtension(
            name="model._fused_rmsnorm",
            sources=["csrc/rmsnorm.cpp", "csrc/rmsnorm_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
