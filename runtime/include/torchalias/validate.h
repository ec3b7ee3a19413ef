// torchalias/validate.h: confirm or dismiss a static finding at run time.
//
//   TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(t)    before an in-place write to t
//   TORCHALIAS_VALIDATE_PARAMETERS(module)    before building an optimizer
//   TORCHALIAS_WORKER_GUARD(guard, t1, t2...) at a spawn site; checked by
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

// Fingerprints a worker's shared inputs when constructed and reports, once,
// whether any of them changed by the time verify() runs (or the destructor,
// if verify() was never called). CPU inputs and inputs on a device with a
// registered fingerprinter (fingerprint.h) are fingerprinted. The guard
// holds handles to the inputs, so it keeps them alive. Inert in mode off.
class worker_guard {
public:
  // `names` is a comma-separated list, as the macro stringizes it.
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
      TORCHALIAS_SITE("libtorch-worker-missing-clone"), {__VA_ARGS__},         \
      #__VA_ARGS__)
