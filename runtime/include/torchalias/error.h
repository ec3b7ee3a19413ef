// torchalias/error.h: the exception type and the TORCHALIAS_CHECK macro.
//
//   torchalias::error         every failure the runtime reports by throwing
//   torchalias::config_error  a bad TORCHALIAS_MODE / TORCHALIAS_REPORT value
//   TORCHALIAS_CHECK(cond, msg...)  throws torchalias::error built from msg...
//
// The message pieces are streamed with operator<<, so any printable value
// can be part of it, and nothing is formatted unless the check fails.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace torchalias {

class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class config_error : public error {
public:
  using error::error;
};

namespace detail {

template <class... Pieces>
std::string concat_message(const Pieces &...pieces) {
  std::ostringstream out;
  (out << ... << pieces);
  return out.str();
}

} // namespace detail
} // namespace torchalias

#define TORCHALIAS_CHECK(cond, ...)                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      throw ::torchalias::error(::torchalias::detail::concat_message(          \
          "torchalias: ", __VA_ARGS__));                                       \
    }                                                                          \
  } while (0)
