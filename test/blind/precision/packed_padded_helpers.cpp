// CASE: pytorch3d-style packed <-> padded conversions: each public function
//       allocates its result (at::zeros / at::empty) and hands it by
//       at::Tensor& to a CPU helper that copies every mesh's rows into a
//       narrow()ed slice of it, looping over the batch
// SOURCE: the kind of code in facebookresearch/pytorch3d
//         pytorch3d/csrc/packed_to_padded_tensor/packed_to_padded_tensor_cpu.cpp
// KIND: near-miss
// WHY-OK: the helpers write only the result tensor their caller allocated a
//         line earlier and returns; the inputs are only read
#include <torch/torch.h>
#include <iostream>

static void packed_to_padded_fill(const at::Tensor& packed, const at::Tensor& first_idxs,
                                  at::Tensor& padded) {
  const int64_t batch = first_idxs.size(0), total = packed.size(0);
  auto first = first_idxs.accessor<int64_t, 1>();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t start = first[b];
    const int64_t end = b + 1 < batch ? first[b + 1] : total;
    padded.select(0, b).narrow(0, 0, end - start).copy_(packed.narrow(0, start, end - start));
  }
}

static void padded_to_packed_fill(const at::Tensor& padded, const at::Tensor& first_idxs,
                                  at::Tensor& packed) {
  const int64_t batch = first_idxs.size(0), total = packed.size(0);
  auto first = first_idxs.accessor<int64_t, 1>();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t start = first[b];
    const int64_t end = b + 1 < batch ? first[b + 1] : total;
    packed.narrow(0, start, end - start).copy_(padded[b].narrow(0, 0, end - start));
  }
}

at::Tensor PackedToPaddedCpu(const at::Tensor& inputs_packed, const at::Tensor& first_idxs,
                             int64_t max_size) {
  auto inputs_padded = at::zeros({first_idxs.size(0), max_size, inputs_packed.size(1)},
                                 inputs_packed.options());
  packed_to_padded_fill(inputs_packed, first_idxs, inputs_padded);
  return inputs_padded;
}

at::Tensor PaddedToPackedCpu(const at::Tensor& inputs_padded, const at::Tensor& first_idxs,
                             int64_t num_inputs) {
  auto inputs_packed = at::empty({num_inputs, inputs_padded.size(2)}, inputs_padded.options());
  padded_to_packed_fill(inputs_padded, first_idxs, inputs_packed);
  return inputs_packed;
}

int main() {
  // Three meshes with 3, 1 and 2 vertices, packed into one (6, 3) tensor.
  auto verts = torch::arange(18, torch::kFloat).view({6, 3});
  auto first = torch::tensor({0, 3, 4}, torch::kLong);
  auto padded = PackedToPaddedCpu(verts, first, 3);
  std::cout << "padded mesh 1:\n" << padded[1] << "\n";
  auto round_trip = PaddedToPackedCpu(padded, first, verts.size(0));
  std::cout << "round trip exact: " << std::boolalpha << round_trip.equal(verts) << "\n";
  return 0;
}
