// Exits 0 only if the installed headers and library behave.
#include <torchalias/torchalias.h>
#if CONSUMER_WITH_CUDA
#include <torchalias/cuda/fingerprint.h>
#endif

#include <torch/torch.h>

#include <iostream>

int main() {
  auto input = torch::ones({4, 4});
  auto head = input.narrow(0, 0, 2);
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  TORCHALIAS_AT_VIEW_WRITE("0123456789abcdef", head).add_(1);

  auto copy = torchalias::isolate(head);
  const bool isolated = !copy.is_alias_of(input);
  const bool overlaps = torchalias::find_overlaps({input, head}).size() == 1;
  const bool confirmed = torchalias::current_stats().confirmed == 2;
#if CONSUMER_WITH_CUDA
  std::cout << "cuda device available: " << torchalias::cuda::device_available()
            << "\n";
#endif
  std::cout << "isolated=" << isolated << " overlaps=" << overlaps
            << " confirmed=" << confirmed << "\n";
  return isolated && overlaps && confirmed ? 0 : 1;
}
