// CASE: a tied autoencoder's decoder registers the encoder's weight as its
//       own parameter (register_parameter of another module's tensor) and
//       the trainer clips the gradient norm over the autoencoder's
//       parameters() before the step
// SOURCE: https://discuss.pytorch.org/t/how-to-create-and-train-a-tied-autoencoder/2585
// KIND: bug
// HARM: the tied weight is in the list twice, so its gradient counts twice in
//       the norm and is scaled twice; the clipped gradient ends far below the
//       requested max norm
#include <torch/torch.h>

#include <iostream>

struct TiedDecoderImpl : torch::nn::Module {
  TiedDecoderImpl(torch::Tensor encoder_weight, int64_t out_features) {
    weight = register_parameter("weight", encoder_weight);  // BUG(libtorch-shared-parameter-update)
    bias = register_parameter("bias", torch::zeros({out_features}));
  }

  torch::Tensor forward(const torch::Tensor& h) {
    return torch::nn::functional::linear(h, weight.t(), bias);
  }

  torch::Tensor weight;
  torch::Tensor bias;
};
TORCH_MODULE(TiedDecoder);

struct TiedAutoencoderImpl : torch::nn::Module {
  TiedAutoencoderImpl(int64_t in, int64_t hidden)
      : encoder(register_module("encoder", torch::nn::Linear(in, hidden))),
        decoder(register_module("decoder", TiedDecoder(encoder->weight, in))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return decoder(torch::sigmoid(encoder(x)));
  }

  torch::nn::Linear encoder;
  TiedDecoder decoder;
};
TORCH_MODULE(TiedAutoencoder);

static double grad_norm_unique(TiedAutoencoder& ae) {
  auto w = ae->encoder->weight.grad().norm().pow(2);
  auto b1 = ae->encoder->bias.grad().norm().pow(2);
  auto b2 = ae->decoder->bias.grad().norm().pow(2);
  return (w + b1 + b2).sqrt().item<double>();
}

int main() {
  torch::manual_seed(0);
  TiedAutoencoder ae(12, 4);
  torch::optim::SGD opt(ae->parameters(), torch::optim::SGDOptions(0.05));  // BUG(libtorch-shared-parameter-update)
  const double max_norm = 0.5;

  auto x = torch::rand({16, 12}) * 10;
  auto loss = torch::mse_loss(ae->forward(x), x);
  opt.zero_grad();
  loss.backward();
  std::cout << "gradient norm before clipping: " << grad_norm_unique(ae) << "\n";
  torch::nn::utils::clip_grad_norm_(ae->parameters(), max_norm);  // BUG(libtorch-shared-parameter-update)
  double after = grad_norm_unique(ae);
  std::cout << "gradient norm after clipping:  " << after << " (max_norm " << max_norm << ")\n";
  if (after < 0.9 * max_norm) {
    std::cout << "HARM: clipping shrank the gradient to " << after
              << " instead of " << max_norm << "\n";
  }
  opt.step();  // BUG(libtorch-shared-parameter-update)
  return 0;
}
