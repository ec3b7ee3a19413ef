// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// add_param_group on every pass of a loop, with a group that holds on one
// pass what it held on an earlier one (Note [Groups added on every pass of a
// loop]).

#include <torch/torch.h>

#include <string>
#include <vector>

struct TowerImpl : torch::nn::Module {
  TowerImpl() {
    for (int i = 0; i < 4; ++i)
      blocks.push_back(register_module("block" + std::to_string(i),
                                       torch::nn::Linear(8, 8)));
    head = register_module("head", torch::nn::Linear(8, 2));
  }
  std::vector<torch::nn::Linear> blocks;
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Tower);

// The blocks nearest the head, `depth` of them.
std::vector<torch::Tensor> lastBlocks(Tower &model, int depth) {
  std::vector<torch::Tensor> params;
  for (int k = 0; k < depth; ++k) {
    auto &block = model->blocks[model->blocks.size() - 1 - k];
    for (auto &p : block->parameters())
      params.push_back(p);
  }
  return params;
}

// The k-th block from the head alone.
std::vector<torch::Tensor> blockAt(Tower &model, int k) {
  std::vector<torch::Tensor> params;
  for (auto &p : model->blocks[model->blocks.size() - 1 - k]->parameters())
    params.push_back(p);
  return params;
}

// Gradual unfreezing through a helper that returns everything so far.
void PositiveHelperPrefix(Tower &model, torch::optim::SGD &opt) {
  for (int stage = 1; stage <= 3; ++stage) {
    auto unfrozen = lastBlocks(model, stage);
    opt.add_param_group(torch::optim::OptimizerParamGroup(unfrozen));
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_param_group' is given the list 'lastBlocks' returns for 'stage' on every pass of the loop, and the list grows with 'stage': each step() updates a parameter once per group that holds it; add only the parameters new to this pass
    // CHECK-NOTES: :[[@LINE-22]]:3: note: 'lastBlocks' collects from the same start up to 'depth' here
    opt.step();
  }
}

// The same, the call written in the group.
void PositiveHelperInline(Tower &model, torch::optim::Adam &opt, int stages) {
  for (int stage = 1; stage < stages; stage++)
    opt.add_param_group({lastBlocks(model, stage)});
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_param_group' is given the list 'lastBlocks' returns for 'stage' on every pass of the loop
  // CHECK-NOTES: :[[@LINE-32]]:3: note: 'lastBlocks' collects from the same start up to 'depth' here
}

// A list kept across passes, grown on each.
void PositiveGrowingList(Tower &model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> unfrozen;
  for (auto &block : model->blocks) {
    auto params = block->parameters();
    unfrozen.insert(unfrozen.end(), params.begin(), params.end());
    opt.add_param_group(torch::optim::OptimizerParamGroup(unfrozen));
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_param_group' is given 'unfrozen' on every pass of the loop, and 'unfrozen' keeps what earlier passes put in it: each step() updates a parameter once per group that holds it
    // CHECK-NOTES: :[[@LINE-3]]:14: note: 'unfrozen' grows here, and the loop never empties it
  }
}

// The same tensors on every pass of an epoch loop.
void PositiveSameList(Tower &model, torch::optim::SGD &opt, int epochs) {
  int epoch = 0;
  while (epoch < epochs) {
    opt.add_param_group(torch::optim::OptimizerParamGroup(model->head->parameters()));
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_param_group' adds the same parameters on every pass of the loop: each step() updates a parameter once per group that holds it
    // CHECK-NOTES: :[[@LINE-3]]:3: note: the loop is here
    opt.step();
    ++epoch;
  }
}

// One block per pass: the groups are disjoint.
void NegativeOneBlockPerPass(Tower &model, torch::optim::SGD &opt) {
  for (int stage = 0; stage < 4; ++stage)
    opt.add_param_group(torch::optim::OptimizerParamGroup(blockAt(model, stage)));
  for (auto &block : model->blocks)
    opt.add_param_group(torch::optim::OptimizerParamGroup(block->parameters()));
}

// The list is emptied on each pass.
void NegativeClearedList(Tower &model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> fresh;
  for (auto &block : model->blocks) {
    fresh.clear();
    for (auto &p : block->parameters())
      fresh.push_back(p);
    opt.add_param_group(torch::optim::OptimizerParamGroup(fresh));
  }
}

// The list is declared in the loop: a new one each pass.
void NegativeListPerPass(Tower &model, torch::optim::SGD &opt) {
  for (auto &block : model->blocks) {
    std::vector<torch::Tensor> fresh;
    for (auto &p : block->parameters())
      fresh.push_back(p);
    opt.add_param_group(torch::optim::OptimizerParamGroup(fresh));
  }
}

// Unfreezing at one epoch only.
void NegativeOnce(Tower &model, torch::optim::SGD &opt, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    if (epoch == 5)
      opt.add_param_group(torch::optim::OptimizerParamGroup(model->head->parameters()));
    opt.step();
  }
}

// The loop leaves after adding.
void NegativeBreak(Tower &model, torch::optim::SGD &opt, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    opt.add_param_group(torch::optim::OptimizerParamGroup(model->head->parameters()));
    break;
  }
}

// Bounds that allow one pass holding the first block: 0 holds none, 1 one.
void NegativeOnePassHolds(Tower &model, torch::optim::SGD &opt) {
  for (int stage = 0; stage < 2; ++stage)
    opt.add_param_group(torch::optim::OptimizerParamGroup(lastBlocks(model, stage)));
}

// The helper's window slides with the counter: it reads 'depth' in its body.
std::vector<torch::Tensor> window(Tower &model, int depth) {
  std::vector<torch::Tensor> params;
  for (int k = 0; k < 1; ++k)
    for (auto &p : model->blocks[depth]->parameters())
      params.push_back(p);
  return params;
}
void NegativeSlidingWindow(Tower &model, torch::optim::SGD &opt) {
  for (int stage = 0; stage < 4; ++stage)
    opt.add_param_group(torch::optim::OptimizerParamGroup(window(model, stage)));
}

// Each new part is added, the list kept for logging: the group is the part.
void NegativeNewPartOnly(Tower &model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> all;
  for (auto &block : model->blocks) {
    auto part = block->parameters();
    all.insert(all.end(), part.begin(), part.end());
    opt.add_param_group(torch::optim::OptimizerParamGroup(part));
  }
}

// Note [Lists grown with a prefix on every pass]: greedy layer-wise training
// grows one list with layers 0..stage on each stage.
void PositivePrefixGrownList(Tower &model, torch::nn::Linear &head) {
  std::vector<torch::Tensor> trainable = head->parameters();
  for (size_t stage = 0; stage < model->blocks.size(); ++stage) {
    for (size_t j = 0; j <= stage; ++j) {
      auto p = model->blocks[j]->parameters();
      trainable.insert(trainable.end(), p.begin(), p.end());
    }
    torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
    // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'SGD' is built from 'trainable', which the loop over 'stage' grows on every pass with the elements from the same start up to 'stage': the first ones are added again on each pass, so the list holds their parameters more than once and each step() updates them once per copy; add only the elements new to this pass
    // CHECK-NOTES: :[[@LINE-4]]:17: note: 'trainable' grows here, for each element up to 'stage', and the loop never empties it
    opt.step();
  }
}

// The same list after the loop, given to clip_grad_norm_.
void PositivePrefixGrownListAfterLoop(Tower &model) {
  std::vector<torch::Tensor> seen;
  for (int stage = 1; stage <= 3; ++stage)
    for (int j = 0; j < stage; ++j)
      for (auto &p : model->blocks[j]->parameters())
        seen.push_back(p);
  torch::nn::utils::clip_grad_norm_(seen, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given 'seen', which the loop over 'stage' grows on every pass with the elements from the same start up to 'stage'
  // CHECK-NOTES: :[[@LINE-3]]:14: note: 'seen' grows here
}

// Negative: the list is emptied on each pass, or each pass adds only its own
// element, or the prefix loop reads the counter (a sliding window).
void NegativePrefixCleared(Tower &model) {
  std::vector<torch::Tensor> trainable;
  for (size_t stage = 0; stage < model->blocks.size(); ++stage) {
    trainable.clear();
    for (size_t j = 0; j <= stage; ++j)
      for (auto &p : model->blocks[j]->parameters())
        trainable.push_back(p);
    torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
  }
}

void NegativeOwnElementPerPass(Tower &model) {
  std::vector<torch::Tensor> trainable;
  for (size_t stage = 0; stage < model->blocks.size(); ++stage)
    for (auto &p : model->blocks[stage]->parameters())
      trainable.push_back(p);
  torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
}

void NegativeSlidingPrefix(Tower &model) {
  std::vector<torch::Tensor> trainable;
  for (size_t stage = 0; stage < model->blocks.size(); ++stage)
    for (size_t j = 0; j < stage; ++j)
      for (auto &p : model->blocks[stage - 1 - j + j * 0]->parameters())
        trainable.push_back(p);
  torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
}

// Negative: literal bounds allow one pass that holds the first element.
void NegativeOnePass(Tower &model) {
  std::vector<torch::Tensor> trainable;
  for (int stage = 0; stage < 2; ++stage)
    for (int j = 0; j < stage; ++j)
      for (auto &p : model->blocks[j]->parameters())
        trainable.push_back(p);
  torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
}
