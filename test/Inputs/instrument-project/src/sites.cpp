// One site per validator that `torchalias instrument` inserts, and shapes it
// must leave alone (test/check/instrument.test).
#include <torch/torch.h>

#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void normalize_inplace(torch::Tensor x) { x.div_(255); }
static void clamp_all(torch::Tensor t) { t.clamp_(0, 1); }

void view_member_write(const torch::Tensor &images) {
  auto first = images.select(0, 0);
  first.mul_(-1);
}

void view_callee_write(const torch::Tensor &images, int n) {
  auto rest = images.narrow(0, 1, n);
  clamp_all(rest);
}

void view_operator_write(const torch::Tensor &images) {
  auto head = images.narrow(0, 0, 2);
  head += 1;
}

void may_alias_nested(const torch::Tensor &x) {
  x.reshape({-1}).mul_(2);
}

void overlap_member(torch::Tensor &history) {
  history.slice(1, 1).copy_(history.slice(1, 0, -1));
}

torch::Tensor from_blob_returned() {
  std::vector<float> pixels(24, 0.5f);
  return torch::from_blob(pixels.data(), {3, 8});
}

void worker_argument(torch::Tensor batch) {
  std::thread t(normalize_inplace, batch);
  consume(batch);
  t.join();
}

void worker_capture(const torch::Tensor &x) {
  auto acc = torch::zeros({4});
  std::thread a([&acc, x] { acc.add_(x); });
  consume(acc);
  a.join();
}

#define SCALE_IN_PLACE(t) (t).mul_(2)
void view_write_in_macro(const torch::Tensor &images) {
  auto first = images.select(0, 0);
  SCALE_IN_PLACE(first);
}

void detached_member_write(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::TensorOptions().requires_grad(true));
  auto h = torch::relu(x.matmul(w));
  h.data().clamp_(0, 1);
  h.sum().backward();
}

struct TiedLMImpl : torch::nn::Module {
  TiedLMImpl() {
    emb = register_module("emb", torch::nn::Embedding(100, 16));
    out_weight = register_parameter("out_weight", emb->weight);
  }
  torch::nn::Embedding emb{nullptr};
  torch::Tensor out_weight;
};
TORCH_MODULE(TiedLM);

void parameters_to_optimizer() {
  TiedLM model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
}

// batch_norm writes running_mean, which is also its bias: the operand is
// compared with the written argument, not with the input.
void overlap_written_argument(const torch::Tensor &x) {
  auto stats = torch::zeros({4});
  torch::batch_norm(x, {}, stats, stats, {}, true, 0.1, 1e-5, false);
}

// A module built to write its input in place, called on a tensor another
// variable still reads: the argument is the written tensor.
torch::Tensor inplace_module_call(torch::Tensor x) {
  torch::nn::ReLU act(torch::nn::ReLUOptions().inplace(true));
  auto identity = x;
  auto out = act(x);
  return out + identity;
}
