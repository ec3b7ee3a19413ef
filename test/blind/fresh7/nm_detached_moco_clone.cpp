// CASE: a MoCo-style contrastive head computes the negative logits against
//       its key queue and enqueues the new keys under NoGradGuard inside the
//       same call, before the caller runs backward
// SOURCE: MoCo's reference implementation ported to libtorch, with its
//         queue.clone().detach() kept
// KIND: near-miss
// WHY-OK: the logits multiply by queue_.clone(), so mm saves the copy, not
//         the queue that the enqueue overwrites; backward sees what forward saw
#include <torch/torch.h>

#include <iostream>

class MomentumContrast {
 public:
  MomentumContrast(int64_t dim, int64_t size, double temperature)
      : queue_(torch::nn::functional::normalize(
            torch::randn({dim, size}), torch::nn::functional::NormalizeFuncOptions().dim(0))),
        temperature_(temperature) {}

  torch::Tensor logits(const torch::Tensor& q, const torch::Tensor& k) {
    auto l_pos = (q * k).sum(1, /*keepdim=*/true);
    auto l_neg = q.mm(queue_.clone());
    auto out = torch::cat({l_pos, l_neg}, 1) / temperature_;
    dequeue_and_enqueue(k);
    return out;
  }

 private:
  void dequeue_and_enqueue(const torch::Tensor& keys) {
    torch::NoGradGuard no_grad;
    const int64_t n = keys.size(0);
    queue_.narrow(1, ptr_, n).copy_(keys.t());
    ptr_ = (ptr_ + n) % queue_.size(1);
  }

  torch::Tensor queue_;
  int64_t ptr_ = 0;
  double temperature_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Linear encoder_q(16, 8), encoder_k(16, 8);
  for (auto& p : encoder_k->parameters()) p.requires_grad_(false);
  MomentumContrast head(8, 32, 0.07);

  auto x = torch::randn({4, 16});
  auto q = torch::nn::functional::normalize(encoder_q(x),
                                            torch::nn::functional::NormalizeFuncOptions().dim(1));
  auto k = torch::nn::functional::normalize(encoder_k(x + 0.1 * torch::randn_like(x)),
                                            torch::nn::functional::NormalizeFuncOptions().dim(1));
  auto logits = head.logits(q, k);
  auto labels = torch::zeros({4}, torch::kLong);
  auto loss = torch::nn::functional::cross_entropy(logits, labels);
  try {
    loss.backward();
    std::cout << "backward ok, |grad| " << encoder_q->weight.grad().norm().item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
