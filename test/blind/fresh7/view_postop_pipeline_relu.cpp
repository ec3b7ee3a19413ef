// CASE: a block runs a list of configurable post-activation ops stored as
//       std::function<void(torch::Tensor&)>; the "cap6" op clamps a flat
//       view() of the ReLU output in place, and relu had saved that output
//       for its backward
// SOURCE: the kind of code in libtorch model zoos that build activations
//         from a config string ("relu", then "cap6") instead of using ReLU6
// KIND: bug
// HARM: loss.backward() throws: the ReLU output needed for the gradient was
//       modified in place through its view
#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using PostOp = std::function<void(torch::Tensor&)>;

const std::map<std::string, PostOp>& post_op_registry() {
  static const std::map<std::string, PostOp> registry{
      {"cap6", [](torch::Tensor& t) { t.view({-1}).clamp_max_(6.0); }},  // BUG(libtorch-inplace-on-view)
      {"identity", [](torch::Tensor&) {}},
  };
  return registry;
}

struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t in, int64_t out, const std::vector<std::string>& post) {
    fc = register_module("fc", torch::nn::Linear(in, out));
    std::transform(post.begin(), post.end(), std::back_inserter(post_ops),
                   [](const std::string& name) { return post_op_registry().at(name); });
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::relu(fc(x));
    std::for_each(post_ops.begin(), post_ops.end(), [&h](const PostOp& op) { op(h); });  // BUG(libtorch-inplace-on-view)
    return h;
  }
  torch::nn::Linear fc{nullptr};
  std::vector<PostOp> post_ops;
};
TORCH_MODULE(Block);

int main() {
  torch::manual_seed(10);
  Block block(5, 7, std::vector<std::string>{"cap6", "identity"});
  torch::nn::Linear head(7, 1);
  auto x = 4.0 * torch::randn({9, 5});
  auto loss = head(block(x)).pow(2).mean();
  try {
    loss.backward();
    std::cout << "backward ok\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
