// torchalias/validate.h: confirm or dismiss a static finding at run time.
//
//   TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(t)    before an in-place write to t
//   TORCHALIAS_VALIDATE_PARAMETERS(module)    before building an optimizer
//   TORCHALIAS_WORKER_GUARD(guard, v1, v2...) at a spawn site (each v a
//                                             tensor or a vector of them);
//                                             checked by
//                                             guard.verify() at the join or
//                                             by the guard's destructor
//
// Each macro records one verdict for its site (file:line:check, where the
// check is named after the clang-tidy check that flags such sites) through
// torchalias::report(); see report.h for what the mode then does, and for
// TORCHALIAS_RECORDS, which writes one record per site and verdict by
// default. The check_* functions compute the same verdicts, with their
// facts, without reporting them. instrument.h has the macros that
// `torchalias instrument` inserts, which carry the finding's identity.
#pragma once

#include "torchalias/report.h"

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace torchalias {

struct validation_result {
  torchalias::verdict verdict;
  torchalias::facts facts;
};

// See Note [In place on a view] in validate.cpp.
validation_result check_inplace_on_view(const at::Tensor &target);
verdict validate_inplace_on_view(const at::Tensor &target,
                                 site_location &site);

// Confirmed when parameter_tie_groups(module) is not empty.
validation_result check_parameters(const torch::nn::Module &module);
verdict validate_parameters(const torch::nn::Module &module,
                            site_location &site);
template <class Impl>
verdict validate_parameters(const torch::nn::ModuleHolder<Impl> &holder,
                            site_location &site) {
  return validate_parameters(*holder, site);
}

// A spawn site's shared values as the guard macros pass them: each a tensor
// or a std::vector of tensors, flattened in order. The handles are copied,
// so later changes to a vector do not change what the guard checks.
class worker_inputs {
public:
  worker_inputs &add(const at::Tensor &tensor) {
    tensors_.push_back(tensor);
    shape_.push_back(-1);
    return *this;
  }
  worker_inputs &add(const std::vector<at::Tensor> &tensors) {
    tensors_.insert(tensors_.end(), tensors.begin(), tensors.end());
    shape_.push_back(static_cast<std::ptrdiff_t>(tensors.size()));
    return *this;
  }
  const std::vector<at::Tensor> &tensors() const { return tensors_; }
  // Per argument: -1 for a tensor, the element count for a vector.
  const std::vector<std::ptrdiff_t> &shape() const { return shape_; }

private:
  std::vector<at::Tensor> tensors_;
  std::vector<std::ptrdiff_t> shape_;
};

template <class... Values>
worker_inputs collect_worker_inputs(const Values &...values) {
  worker_inputs inputs;
  (inputs.add(values), ...);
  return inputs;
}

// Fingerprints a worker's shared inputs when constructed and reports, once,
// whether any of them changed by the time verify() runs (or the destructor,
// if verify() was never called). CPU inputs and inputs on a device with a
// registered fingerprinter (fingerprint.h) are fingerprinted. The guard
// holds handles to the inputs, so it keeps them alive. Inert in mode off.
class worker_guard {
public:
  // `names` is a comma-separated list, as the macro stringizes it, one name
  // per argument; a vector argument's elements are named `name[i]`.
  worker_guard(site_location &site, worker_inputs inputs,
               const char *names = "");
  // Each tensor an argument of its own.
  worker_guard(site_location &site, std::vector<at::Tensor> inputs,
               const char *names = "");
  ~worker_guard();
  worker_guard(const worker_guard &) = delete;
  worker_guard &operator=(const worker_guard &) = delete;

  verdict verify();
  validation_result check() const; // the verdict verify() would report

private:
  site_location &site_;
  std::vector<at::Tensor> inputs_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> before_;
  std::vector<bool> fingerprinted_;
  bool active_;
  bool verified_ = false;
};

} // namespace torchalias

#define TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(tensor)                           \
  do {                                                                         \
    if (::torchalias::reporting_enabled())                                     \
      ::torchalias::validate_inplace_on_view(                                  \
          (tensor), TORCHALIAS_SITE("libtorch-inplace-on-view"));              \
  } while (0)

#define TORCHALIAS_VALIDATE_PARAMETERS(module)                                 \
  do {                                                                         \
    if (::torchalias::reporting_enabled())                                     \
      ::torchalias::validate_parameters(                                       \
          (module), TORCHALIAS_SITE("libtorch-shared-parameter-update"));      \
  } while (0)

#define TORCHALIAS_WORKER_GUARD(guard_name, ...)                               \
  ::torchalias::worker_guard guard_name(                                       \
      TORCHALIAS_SITE("libtorch-worker-missing-clone"),                        \
      ::torchalias::collect_worker_inputs(__VA_ARGS__), #__VA_ARGS__)
