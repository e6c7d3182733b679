#include "support/error.hpp"

#include <string>

namespace rw::detail {

void assertion_failed(std::string_view condition, std::string_view message,
                      std::source_location where) {
  std::string text(where.file_name());
  text += ':';
  text += std::to_string(where.line());
  text += ": internal error: ";
  text += message;
  text += " (";
  text += condition;
  text += ')';
  throw InternalError(text);
}

}  // namespace rw::detail
