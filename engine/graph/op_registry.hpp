// OpRegistry: builds an Op from a name and parameters (`sum{axis=(0,)}`), for
// the rules language, graph files and tools, and lists every Op it knows.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/op.hpp"

namespace rw {

/// The kind of value a parameter takes.
enum class ParamKind : std::uint8_t { Bool, Int, Float, String, Ints, DType };
std::string_view param_kind_name(ParamKind kind);

/// One parameter an Op accepts.
struct ParamSpec {
  std::string name;
  ParamKind kind;
  /// Value used when the parameter is omitted; nullopt makes it required.
  std::optional<PropValue> default_value;
  /// Whether `none` is accepted (e.g. `axis=none` for all axes).
  bool nullable = false;
  std::string doc;
};

/// What the registry knows of one Op.
struct OpInfo {
  std::string name;
  /// One line: what the Op computes.
  std::string doc;
  std::vector<ParamSpec> params;
  /// Number of inputs accepted; max_inputs < 0 means any number from min_inputs.
  int min_inputs = 1;
  int max_inputs = 1;
  /// Builds the Op from complete, checked parameters (defaults filled in).
  std::function<OpPtr(const Props& params)> factory;
};

/// Name → Op factory. Filled once by explicit registration functions
/// (`register_elemwise(registry)`), never by static initialisers.
class OpRegistry {
 public:
  /// Adds an Op; throws ValueError if the name is taken.
  void add(OpInfo info);
  /// Another name for a registered Op (graph files use PyTensor's names).
  void add_alias(std::string alias, std::string target);

  /// The Op's entry (aliases resolved), or nullptr.
  const OpInfo* find(std::string_view name) const;
  /// Builds the Op. Throws rw::Error for an unknown name (with the closest
  /// known names), an unknown or repeated parameter, a missing one, or a value
  /// of the wrong kind; the message names the Op and the parameter.
  OpPtr make(std::string_view name, const Props& params = {}) const;
  /// Checks `params` against `info` and fills in defaults; throws as `make`.
  static Props complete_params(const OpInfo& info, const Props& params);
  /// Whether `n` inputs are acceptable for `info`.
  static bool arity_ok(const OpInfo& info, std::size_t n);

  /// Every registered Op, sorted by name.
  std::vector<const OpInfo*> all() const;
  /// Known names within a small edit distance of `name`, closest first.
  std::vector<std::string> suggest(std::string_view name) const;

 private:
  std::map<std::string, OpInfo, std::less<>> ops_;
  std::map<std::string, std::string, std::less<>> aliases_;
};

}  // namespace rw
