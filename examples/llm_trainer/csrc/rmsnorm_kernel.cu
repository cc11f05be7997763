#include <cuda.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

// __global__ void not_a_kernel() {}  <- a comment, not a kernel

template <typename scalar_t>
__global__ void rmsnorm_forward_kernel(const scalar_t* __restrict__ input, const scalar_t* __restrict__ weight,
                                       scalar_t* __restrict__ output, float* __restrict__ rstd, int cols,
                                       float eps) {
  const int row = blockIdx.x;
  float sum = 0.f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    float v = static_cast<float>(input[row * cols + i]);
    sum += v * v;
  }
  __shared__ float shared[32];
  sum = __shfl_down_sync(0xffffffff, sum, 16);
  if (threadIdx.x == 0) shared[0] = rsqrtf(sum / cols + eps);
  __syncthreads();
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    output[row * cols + i] = static_cast<scalar_t>(static_cast<float>(input[row * cols + i]) * shared[0] *
                                                   static_cast<float>(weight[i]));
  }
  if (threadIdx.x == 0) rstd[row] = shared[0];
}

template <typename scalar_t>
__global__ void rmsnorm_backward_kernel(const scalar_t* __restrict__ grad, const scalar_t* __restrict__ input,
                                        const scalar_t* __restrict__ weight, const float* __restrict__ rstd,
                                        scalar_t* __restrict__ grad_input, int cols) {
  const int row = blockIdx.x;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    grad_input[row * cols + i] = static_cast<scalar_t>(static_cast<float>(grad[row * cols + i]) * rstd[row] *
                                                       static_cast<float>(weight[i]));
  }
}

torch::Tensor rmsnorm_forward_cuda(torch::Tensor input, torch::Tensor weight, double eps) {
  auto output = torch::empty_like(input);
  auto rows = input.numel() / input.size(-1);
  auto rstd = torch::empty({rows}, input.options().dtype(torch::kFloat));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "rmsnorm_forward", [&] {
    rmsnorm_forward_kernel<scalar_t><<<rows, 256>>>(input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(),
                                                    output.data_ptr<scalar_t>(), rstd.data_ptr<float>(),
                                                    input.size(-1), eps);
  });
  return output;
}

std::vector<torch::Tensor> rmsnorm_backward_cuda(torch::Tensor grad, torch::Tensor input, torch::Tensor weight,
                                                 torch::Tensor rstd) {
  auto grad_input = torch::empty_like(input);
  auto rows = input.numel() / input.size(-1);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "rmsnorm_backward", [&] {
    rmsnorm_backward_kernel<scalar_t><<<rows, 256>>>(grad.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(),
                                                     weight.data_ptr<scalar_t>(), rstd.data_ptr<float>(),
                                                     grad_input.data_ptr<scalar_t>(), input.size(-1));
  });
  return {grad_input, torch::Tensor()};
}
