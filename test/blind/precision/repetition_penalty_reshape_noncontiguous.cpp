// CASE: a text-generation loop's `apply_repetition_penalty_(logits, ...)`
//       is documented to modify `logits` in place: it flattens them with
//       reshape({-1}) and index_put_s the penalised scores into the flat
//       tensor; the decoder passes `all_logits.select(1, t)`, the logits of
//       step t of a (batch, steps, vocab) tensor, which is not contiguous
// SOURCE: the kind of code in libtorch LLM / seq2seq runtimes (ports of
//         HF transformers RepetitionPenaltyLogitsProcessor); reshape returns
//         a view only when the strides allow it, a copy otherwise
// KIND: bug
// HARM: for a non-contiguous logits slice the reshape copies, the penalty
//       lands in the copy, and greedy decoding repeats the same token
#include <torch/torch.h>
#include <iostream>

// Penalises, in place, the logits of tokens already generated.
void apply_repetition_penalty_(torch::Tensor logits, const torch::Tensor& generated,
                               double penalty) {
  const int64_t batch = logits.size(0), vocab = logits.size(1);
  auto flat = logits.reshape({-1}); // BUG(libtorch-inplace-on-view)
  auto rows = torch::arange(batch, torch::kLong).unsqueeze(1) * vocab;
  auto idx = (generated + rows).reshape({-1});
  auto vals = flat.index({idx});
  flat.index_put_({idx}, torch::where(vals > 0, vals / penalty, vals * penalty)); // BUG(libtorch-inplace-on-view)
}

int main() {
  const int64_t batch = 2, steps = 3, vocab = 5;
  // Token 1 is the model's favourite everywhere; token 2 is a close second.
  auto all_logits = torch::zeros({batch, steps, vocab});
  all_logits.select(2, 1).fill_(3.0);
  all_logits.select(2, 2).fill_(2.0);
  auto generated = torch::full({batch, 1}, 1, torch::kLong);  // token 1 already emitted

  const int64_t t = 1;
  auto step_logits = all_logits.select(1, t);
  apply_repetition_penalty_(step_logits, generated, /*penalty=*/2.0);
  auto next = step_logits.argmax(-1);
  std::cout << "next tokens: " << next << "\n";
  if (next.eq(1).any().item<bool>())
    std::cout << "HARM: the penalty was applied to a reshape copy; step_logits[0][1] is still "
              << step_logits[0][1].item<float>() << " and token 1 repeats\n";
  return 0;
}
