// torchalias/parameters.h: shared (tied or duplicated) module parameters.
//
//   unique_parameters(params | module)  the list an optimizer should get:
//                                       each memory once, first-seen order
//   parameter_tie_groups(module)        names of parameters sharing memory
//   untie(module)                       give each tied parameter its own
//                                       storage; returns what it changed
//   deep_clone(holder)                  a typed deep copy of a ModuleHolder
//
// libtorch's C++ parameters() does not de-duplicate the way Python's does:
// a tensor registered twice, or a submodule registered under two names,
// comes back twice, and an optimizer built from it steps that memory twice.
#pragma once

#include "torchalias/error.h"

#include <ATen/core/Tensor.h>
#include <c10/util/Optional.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torchalias {

// See Note [Parameter identity] in parameters.cpp.
std::vector<at::Tensor> unique_parameters(const std::vector<at::Tensor> &params);
std::vector<at::Tensor> unique_parameters(const torch::nn::Module &module);

// Names (as named_parameters() spells them) of parameters that are the same
// TensorImpl or whose byte ranges in one storage overlap.
struct parameter_tie_group {
  std::vector<std::string> names;
};
// Groups of two or more, ordered by their first name's position.
std::vector<parameter_tie_group>
parameter_tie_groups(const torch::nn::Module &module);

enum class untie_action {
  // A distinct TensorImpl sharing storage got fresh storage through
  // set_data(), so every handle to it (typed members too) sees the copy.
  reset_data,
  // The same TensorImpl was registered again; the registry entry now holds
  // a clone. A typed member handle still names the old tensor: see
  // Note [Untying one handle] in parameters.cpp.
  reregistered,
  // One module object reached under two paths: its parameter is one
  // registry entry, so untying it needs a copy of the module (deep_clone).
  skipped_shared_module,
};
const char *to_string(untie_action action);

struct untie_change {
  std::string name;    // the parameter that changed (or was skipped)
  std::string tied_to; // the first name of its tie group, left unchanged
  untie_action action;
};
std::vector<untie_change> untie(torch::nn::Module &module);

template <class Impl>
std::vector<at::Tensor>
unique_parameters(const torch::nn::ModuleHolder<Impl> &holder) {
  return unique_parameters(*holder);
}
template <class Impl>
std::vector<parameter_tie_group>
parameter_tie_groups(const torch::nn::ModuleHolder<Impl> &holder) {
  return parameter_tie_groups(*holder);
}
template <class Impl>
std::vector<untie_change> untie(torch::nn::ModuleHolder<Impl> &holder) {
  return untie(*holder);
}

// Copying a ModuleHolder copies a shared_ptr; this copies the module, its
// parameters, buffers and submodules (Cloneable::clone), and keeps the
// holder's type. Parameters tied inside the module come out untied. A
// module that is not Cloneable makes libtorch throw c10::Error.
template <class Holder>
Holder deep_clone(const Holder &holder,
                  const c10::optional<at::Device> &device = c10::nullopt) {
  using impl_type = typename Holder::ContainedType;
  TORCHALIAS_CHECK(!holder.is_empty(), "deep_clone() of an empty holder");
  std::shared_ptr<impl_type> copy =
      std::dynamic_pointer_cast<impl_type>(holder->clone(device));
  TORCHALIAS_CHECK(copy != nullptr, "deep_clone(): clone() of ",
                   holder->name(), " returned a module of another type");
  return Holder(std::move(copy));
}

} // namespace torchalias
