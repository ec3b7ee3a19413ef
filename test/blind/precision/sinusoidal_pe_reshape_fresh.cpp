// CASE: a Transformer's sinusoidal positional-encoding table is built in a
//       torch::zeros buffer, reshaped to (max_len, d/2, 2) and filled through
//       `pairs.select(-1, 0)` (sin) and `pairs.select(-1, 1)` (cos), then
//       registered as a buffer; the forward adds a narrow() of it to the input
// SOURCE: the kind of code in the PyTorch "Language translation with
//         nn.Transformer" tutorial (PositionalEncoding: pe[:, 0::2] = sin,
//         pe[:, 1::2] = cos) ported to libtorch C++ ASR/NMT models
// KIND: near-miss
// WHY-OK: `pe` is a contiguous buffer the constructor just allocated, so its
//         reshape is a view by construction, and the even and odd columns
//         are disjoint; forward only reads the table
#include <torch/torch.h>
#include <cmath>
#include <iostream>

using namespace torch::indexing;

struct PositionalEncodingImpl : torch::nn::Module {
  PositionalEncodingImpl(int64_t d_model, int64_t max_len) {
    TORCH_CHECK(d_model % 2 == 0, "d_model must be even");
    auto pe = torch::zeros({max_len, d_model});
    auto position = torch::arange(max_len, torch::kFloat).unsqueeze(1);
    auto div_term = torch::exp(torch::arange(0, d_model, 2, torch::kFloat) *
                               (-std::log(10000.0) / d_model));
    auto pairs = pe.reshape({max_len, d_model / 2, 2});
    pairs.select(-1, 0).copy_(torch::sin(position * div_term));
    pairs.select(-1, 1).copy_(torch::cos(position * div_term));
    table = register_buffer("pe", pe.unsqueeze(0));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // (batch, seq, d_model)
    return x + table.narrow(1, 0, x.size(1));
  }
  torch::Tensor table;
};
TORCH_MODULE(PositionalEncoding);

int main() {
  PositionalEncoding pos_enc(8, 16);
  auto x = torch::zeros({2, 5, 8});
  auto y = pos_enc(x);
  // Reference: the strided-slice formulation from the tutorial.
  auto ref = torch::zeros({16, 8});
  auto position = torch::arange(16, torch::kFloat).unsqueeze(1);
  auto div = torch::exp(torch::arange(0, 8, 2, torch::kFloat) * (-std::log(10000.0) / 8));
  ref.index_put_({Slice(), Slice(0, None, 2)}, torch::sin(position * div));
  ref.index_put_({Slice(), Slice(1, None, 2)}, torch::cos(position * div));
  std::cout << "matches reference: " << std::boolalpha
            << torch::allclose(pos_enc->table[0], ref) << ", y[0][1][:4] = "
            << y[0][1].narrow(0, 0, 4) << "\n";
  return 0;
}
