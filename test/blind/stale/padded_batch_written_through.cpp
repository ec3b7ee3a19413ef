// CASE: a collate function makes the destination windows of each sequence
//       (views of the batch) first, fills the whole batch with the pad id in
//       place, then copies each sequence through its window; the first-token
//       column is taken after the writes
// SOURCE: the kind of code in C++ collate functions for variable-length
//         token sequences (torch::data custom Stack transforms)
// KIND: near-miss
// WHY-OK: the views kept across fill_ are only written through afterwards,
//         and the view that is read is taken after every write
#include <torch/torch.h>
#include <iostream>
#include <vector>

int main() {
  const int64_t pad_id = 0;
  std::vector<torch::Tensor> seqs{torch::tensor({5, 6, 7}, torch::kLong),
                                  torch::tensor({8, 9}, torch::kLong),
                                  torch::tensor({4}, torch::kLong)};
  const int64_t max_len = 3;
  auto batch = torch::empty({int64_t(seqs.size()), max_len}, torch::kLong);
  std::vector<torch::Tensor> slots;
  for (size_t i = 0; i < seqs.size(); ++i)
    slots.push_back(batch.select(0, i).narrow(0, 0, seqs[i].size(0)));
  batch.fill_(pad_id);
  for (size_t i = 0; i < seqs.size(); ++i) slots[i].copy_(seqs[i]);
  auto first_tokens = batch.select(1, 0);
  std::cout << "batch:\n" << batch << "\nfirst tokens: " << first_tokens << "\n";
  auto expected = torch::tensor({5, 6, 7, 8, 9, 0, 4, 0, 0}, torch::kLong).view({3, 3});
  if (!torch::equal(batch, expected) || first_tokens[2].item<int64_t>() != 4)
    std::cout << "HARM: the padded batch is wrong\n";
  return 0;
}
