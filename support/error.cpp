#include "support/error.hpp"

#include <string>

namespace rw::detail {

void assertion_failed(std::string_view condition, std::string_view message, const char* file,
                      int line) {
  std::string text(file);
  text += ':';
  text += std::to_string(line);
  text += ": internal error: ";
  text += message;
  text += " (";
  text += condition;
  text += ')';
  throw InternalError(text);
}

}  // namespace rw::detail
