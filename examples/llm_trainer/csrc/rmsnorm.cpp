#include <torch/extension.h>

// Implemented in rmsnorm_kernel.cu
torch::Tensor rmsnorm_forward_cuda(torch::Tensor input, torch::Tensor weight, double eps);
std::vector<torch::Tensor> rmsnorm_backward_cuda(torch::Tensor grad, torch::Tensor input, torch::Tensor weight,
                                                 torch::Tensor rstd);

torch::Tensor rmsnorm_forward(torch::Tensor input, torch::Tensor weight, double eps) {
  TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
  return rmsnorm_forward_cuda(input, weight, eps);
}

std::vector<torch::Tensor> rmsnorm_backward(torch::Tensor grad, torch::Tensor input, torch::Tensor weight,
                                            torch::Tensor rstd) {
  return rmsnorm_backward_cuda(grad, input, weight, rstd);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &rmsnorm_forward, "RMSNorm forward (CUDA)");
  m.def("backward", &rmsnorm_backward, "RMSNorm backward (CUDA)");
}
