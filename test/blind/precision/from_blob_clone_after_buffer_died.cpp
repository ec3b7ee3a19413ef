// CASE: a tokenizer binding builds the attention mask in a lambda that owns
//       a local std::vector<int64_t> and returns `torch::from_blob(...)` of
//       it; the caller does `make_mask(len).clone()`, believing the clone
//       protects it, but the clone runs after the lambda returned and the
//       vector was freed
// SOURCE: the kind of code in libtorch NLP front ends (tokenizers-cpp /
//         sentencepiece glue that builds input_ids and attention_mask);
//         cf. discuss.pytorch.org threads on "from_blob + clone still gives
//         garbage" where the clone is outside the buffer's scope
// KIND: bug
// HARM: the clone copies freed memory: the first entries of the mask hold
//       the allocator's free-list words instead of 1s
#include <torch/torch.h>
#include <iostream>
#include <vector>

struct Encoded {
  torch::Tensor input_ids, attention_mask;
};

Encoded encode(const std::vector<int64_t>& ids, int64_t max_len) {
  auto make_mask = [](int64_t valid, int64_t total) {
    std::vector<int64_t> mask(total, 0);
    std::fill(mask.begin(), mask.begin() + valid, 1);
    return torch::from_blob(mask.data(), {1, total}, torch::kLong); // BUG(libtorch-from-blob-escape)
  };
  auto padded = torch::zeros({1, max_len}, torch::kLong);
  const auto n = std::min<int64_t>(ids.size(), max_len);
  for (int64_t i = 0; i < n; ++i) padded[0][i] = ids[i];
  Encoded out;
  out.input_ids = padded;
  out.attention_mask = make_mask(n, max_len).clone(); // BUG(libtorch-from-blob-escape)
  return out;
}

int main() {
  auto enc = encode({101, 7592, 2088, 102}, 16);
  auto mask = enc.attention_mask;
  std::cout << "mask[:6] = " << mask[0].narrow(0, 0, 6) << "\n";
  auto expected = torch::zeros({1, 16}, torch::kLong);
  expected.narrow(1, 0, 4).fill_(1);
  if (!mask.equal(expected))
    std::cout << "HARM: the attention mask was cloned from a dead vector; "
              << (mask != expected).sum().item<int64_t>() << " of 16 entries are wrong\n";
  return 0;
}
