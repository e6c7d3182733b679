// rwcheck's JSON: nlohmann's ordered_json (object keys in the order they were
// set), printed the one way every command prints it.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rw::check {

/// A JSON value whose objects keep their keys in the order they were set.
using Json = nlohmann::ordered_json;

/// `value` as rwcheck prints it: two-space indentation, UTF-8 kept as it is,
/// each byte sequence that is not UTF-8 (RFC 8259 allows nothing else)
/// replaced by U+FFFD, and a final newline.
inline std::string json_text(const Json& value) {
  return value.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

/// `n` as a number, or null when there is none.
template <class T>
Json number_or_null(const std::optional<T>& n) {
  return n ? Json(*n) : Json(nullptr);
}

}  // namespace rw::check
