// CASE: a tabular pipeline unbinds the feature matrix into per-column views
//       (keeping the raw price column for the label), standardises the matrix
//       in place for the model, and then builds the label from the price view
// SOURCE: https://github.com/sufiyansayyed19/myTorch (notebook on silent tensor
//         mutation through shared memory and in-place ops)
// KIND: bug
// HARM: the labels are built from standardised prices
#include <torch/torch.h>

#include <cstdio>
#include <vector>

int main() {
  torch::manual_seed(32);
  // columns: price, volume, volatility
  auto features = torch::stack({torch::rand({32}) * 100 + 50, torch::rand({32}) * 1e4,
                                torch::rand({32})}, 1);
  std::vector<torch::Tensor> cols = features.unbind(1);  // BUG(libtorch-inplace-on-view)
  torch::Tensor price = cols[0];
  auto expected_labels = (price > 100.0).to(torch::kLong);

  // Standardise for the network.
  features.sub_(features.mean(0)).div_(features.std(0));  // BUG(libtorch-inplace-on-view)

  auto labels = (price > 100.0).to(torch::kLong);  // BUG(libtorch-inplace-on-view)
  const int64_t wrong = (labels != expected_labels).sum().item<int64_t>();
  std::printf("%lld of 32 labels differ from the raw-price labels\n", static_cast<long long>(wrong));
  if (wrong > 0) std::printf("HARM: labels were built from standardised prices (%lld wrong)\n", static_cast<long long>(wrong));
  return 0;
}
