#include "torchalias/parameters.h"

#include "torchalias/isolate.h"
#include "torchalias/overlap.h"

#include <torch/nn/module.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace torchalias {
namespace {

// Note [Parameter identity]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Two entries are one parameter when they are the same TensorImpl, or when
// they are distinct TensorImpls over the same bytes of one storage with the
// same dtype, sizes and strides (a parameter re-wrapped by detach() or
// view_as(), say): an optimizer stepping both steps that memory twice.
// Parameters that only partly overlap, such as views into one flat buffer,
// are kept: each has its own elements to update. parameter_tie_groups()
// reports those, because they are worth knowing about.
using memory_identity =
    std::tuple<const void *, const void *, std::vector<std::int64_t>,
               std::vector<std::int64_t>, c10::ScalarType>;

memory_identity identity_of(const at::Tensor &tensor) {
  return {tensor.storage().unsafeGetStorageImpl(), tensor.data_ptr(),
          tensor.sizes().vec(), tensor.strides().vec(),
          tensor.scalar_type()};
}

// Union-find over parameter indices, joined by every overlapping pair.
std::vector<std::size_t> tie_roots(const std::vector<at::Tensor> &params) {
  std::vector<std::size_t> parent(params.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](std::size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const tensor_overlap &pair :
       find_overlaps(params, {/*include_disjoint_views=*/false})) {
    if (pair.kind == overlap_kind::disjoint_views)
      continue;
    std::size_t a = root(pair.first), b = root(pair.second);
    parent[std::max(a, b)] = std::min(a, b);
  }
  for (std::size_t i = 0; i < params.size(); ++i)
    parent[i] = root(i);
  return parent;
}

// Groups of indices into named_parameters(), each in first-seen order.
std::vector<std::vector<std::size_t>>
tie_index_groups(const std::vector<at::Tensor> &params) {
  std::vector<std::size_t> roots = tie_roots(params);
  std::map<std::size_t, std::vector<std::size_t>> by_root;
  for (std::size_t i = 0; i < roots.size(); ++i)
    by_root[roots[i]].push_back(i);
  std::vector<std::vector<std::size_t>> groups;
  for (auto &[root, members] : by_root) {
    if (members.size() > 1)
      groups.push_back(std::move(members));
  }
  return groups; // roots are each group's smallest index, so map order
                 // is first-name order
}

// The registry is protected; naming it through a derived class is the
// language's sanctioned way to reach it without changing libtorch.
struct parameter_registry : torch::nn::Module {
  static torch::OrderedDict<std::string, at::Tensor> &of(torch::nn::Module &m) {
    return m.*(&parameter_registry::parameters_);
  }
};

struct parameter_owner {
  torch::nn::Module *module;
  std::string local_name;
};

parameter_owner owner_of(torch::nn::Module &root, const std::string &name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos)
    return {&root, name};
  auto children = root.named_modules(/*name_prefix=*/"", /*include_self=*/false);
  return {children[name.substr(0, dot)].get(), name.substr(dot + 1)};
}

} // namespace

std::vector<at::Tensor>
unique_parameters(const std::vector<at::Tensor> &params) {
  std::set<const void *> seen_impls;
  std::set<memory_identity> seen_memory;
  std::vector<at::Tensor> unique;
  for (const at::Tensor &param : params) {
    if (!param.defined())
      continue;
    const bool new_impl = seen_impls.insert(param.unsafeGetTensorImpl()).second;
    const bool new_memory =
        !param.has_storage() || seen_memory.insert(identity_of(param)).second;
    if (new_impl && new_memory)
      unique.push_back(param);
  }
  return unique;
}

std::vector<at::Tensor> unique_parameters(const torch::nn::Module &module) {
  return unique_parameters(module.parameters(/*recurse=*/true));
}

std::vector<parameter_tie_group>
parameter_tie_groups(const torch::nn::Module &module) {
  const auto named = module.named_parameters(/*recurse=*/true);
  std::vector<parameter_tie_group> groups;
  for (const auto &indices : tie_index_groups(named.values())) {
    parameter_tie_group group;
    for (std::size_t i : indices)
      group.names.push_back(named[i].key());
    groups.push_back(std::move(group));
  }
  return groups;
}

const char *to_string(untie_action action) {
  switch (action) {
  case untie_action::reset_data:
    return "reset-data";
  case untie_action::reregistered:
    return "reregistered";
  case untie_action::skipped_shared_module:
    return "skipped-shared-module";
  }
  return "?";
}

// Note [Untying one handle]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// When one TensorImpl is registered under two names, no operation on the
// tensor can separate the names: anything done to it is seen through both.
// untie() therefore replaces the later registry entry with a clone. A module
// that also keeps the tensor in a typed member (`weight = register_parameter
// (...)`) keeps the old handle there, so its forward() still uses the shared
// tensor; rebind such members from named_parameters() after untie(). C++
// has no reflection to do it for you.
std::vector<untie_change> untie(torch::nn::Module &module) {
  const auto named = module.named_parameters(/*recurse=*/true);
  std::vector<untie_change> changes;
  at::NoGradGuard no_grad;
  for (const auto &indices : tie_index_groups(named.values())) {
    const std::string &kept = named[indices.front()].key();
    std::set<std::pair<torch::nn::Module *, std::string>> entries;
    std::set<const void *> impls;
    for (std::size_t i : indices) {
      const std::string &name = named[i].key();
      const at::Tensor &param = named[i].value();
      parameter_owner owner = owner_of(module, name);
      const bool same_entry =
          !entries.insert({owner.module, owner.local_name}).second;
      const bool same_impl = !impls.insert(param.unsafeGetTensorImpl()).second;
      if (i == indices.front())
        continue;
      if (same_entry) {
        changes.push_back({name, kept, untie_action::skipped_shared_module});
      } else if (same_impl) {
        at::Tensor copy = isolate(param);
        copy.set_requires_grad(param.requires_grad());
        parameter_registry::of(*owner.module)[owner.local_name] = copy;
        changes.push_back({name, kept, untie_action::reregistered});
      } else {
        at::Tensor(param).set_data(isolate(param));
        changes.push_back({name, kept, untie_action::reset_data});
      }
    }
  }
  return changes;
}

} // namespace torchalias
