// CASE: a multi-field linear scorer accumulates per-field logits with
//       at::addmv_out(scores, scores, W_field, x_field): the out tensor is
//       also one of the operator's inputs
// SOURCE: the kind of code in libtorch CTR / wide-model inference that sums
//         feature-field contributions into one preallocated buffer
// KIND: near-miss
// WHY-OK: out aliases only the additive input (beta * self), which addmv
//         reads element by element before writing that element, as BLAS gemv
//         does with y; the vector being multiplied is a different tensor
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

struct Field {
  std::string name;
  torch::Tensor weight;  // classes x field_dim
  torch::Tensor input;   // field_dim
};

torch::Tensor score_into(torch::Tensor& scores, const std::vector<Field>& fields) {
  for (const auto& f : fields) at::addmv_out(scores, scores, f.weight, f.input);
  return scores;
}

int main() {
  torch::manual_seed(14);
  std::vector<Field> fields{{"user", torch::randn({5, 7}), torch::randn({7})},
                            {"item", torch::randn({5, 3}), torch::randn({3})},
                            {"context", torch::randn({5, 4}), torch::randn({4})}};
  auto bias = torch::randn({5});

  auto ref = bias.clone();
  for (const auto& f : fields) ref = ref + f.weight.mv(f.input);

  auto scores = bias.clone();
  score_into(scores, fields);
  const double err = (scores - ref).abs().max().item<double>();
  std::cout << "score error " << err << "\n";
  if (err > 1e-5) std::cout << "HARM: the accumulated scores are off by " << err << "\n";
  return 0;
}
