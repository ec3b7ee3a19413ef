// CASE: a sliding-window KV cache (ring buffer) moves the key it evicts into
//       a compressed memory; the evicted key is taken with index() (a view)
//       and the slot is overwritten with index_put_ before the memory is read
// SOURCE: the kind of code in streaming-attention / Compressive-Transformer
//         style inference loops with a fixed-size K cache
// KIND: bug
// HARM: the memory holds the newest keys instead of the evicted ones
#include <torch/torch.h>
#include <iostream>
#include <vector>

using namespace torch::indexing;

int main() {
  const int64_t window = 4, dim = 3;
  auto k_cache = torch::zeros({window, dim});
  std::vector<torch::Tensor> memory;   // evicted keys, compressed later
  for (int64_t t = 0; t < 7; ++t) {
    auto k_new = torch::full({dim}, float(t));
    int64_t slot = t % window;
    if (t >= window) {
      auto evicted = k_cache.index({slot, Slice()});     // BUG(libtorch-inplace-on-view)
      k_cache.index_put_({slot, Slice()}, k_new);        // BUG(libtorch-inplace-on-view)
      memory.push_back(evicted);                         // BUG(libtorch-inplace-on-view)
    } else {
      k_cache.index_put_({slot, Slice()}, k_new);
    }
  }
  auto mem = torch::stack(memory).mean(1);               // BUG(libtorch-inplace-on-view)
  std::cout << "memory keys: " << mem << "\n";
  if (mem[0].item<float>() != 0.0f)
    std::cout << "HARM: the first evicted key was 0 but the memory holds "
              << mem[0].item<float>() << "\n";
  return 0;
}
