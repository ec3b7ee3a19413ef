// json_text.h (private to runtime/src): the JSON fragments that the
// validators' facts are made of. c10::str() would do, but goes through an
// ostringstream on paths that run before flagged writes.
#pragma once

#include "torchalias/report.h"

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace torchalias::detail {

// A 64-bit value (a fingerprint, a storage) as "0x" and 16 hex digits.
inline std::string hex(std::uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

// An address as "0x" and as many hex digits as it needs.
inline std::string hex_address(std::uintptr_t address) {
  char text[2 + 2 * sizeof(std::uintptr_t) + 1];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(address));
  return text;
}

inline std::string json_int_array(c10::IntArrayRef values) {
  std::string json = "[";
  for (std::int64_t value : values)
    json += (json.size() > 1 ? "," : "") + std::to_string(value);
  return json + "]";
}

inline std::string json_string_array(const std::vector<std::string> &values) {
  std::string json = "[";
  for (const std::string &value : values)
    json += (json.size() > 1 ? "," : "") + json_quote(value);
  return json + "]";
}

} // namespace torchalias::detail
