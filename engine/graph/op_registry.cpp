// OpRegistry: parameter checking, defaults, aliases and suggestions.
#include "engine/graph/op_registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/suggest.hpp"

namespace rw {

std::string_view param_kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::Bool: return "bool";
    case ParamKind::Int: return "int";
    case ParamKind::Float: return "float";
    case ParamKind::String: return "string";
    case ParamKind::Ints: return "tuple of ints";
    case ParamKind::DType: return "dtype";
  }
  return "?";
}

void OpRegistry::add(OpInfo info) {
  if (info.name.empty()) throw ValueError("OpRegistry::add: empty op name");
  if (!info.factory) throw ValueError("OpRegistry::add: op `" + info.name + "` has no factory");
  if (ops_.contains(info.name) || aliases_.contains(info.name))
    throw ValueError("OpRegistry::add: op `" + info.name + "` is already registered");
  std::string name = info.name;
  ops_.emplace(std::move(name), std::move(info));
}

void OpRegistry::add_alias(std::string alias, std::string target) {
  if (!ops_.contains(target)) throw ValueError("OpRegistry::add_alias: no op `" + target + "`");
  if (ops_.contains(alias) || aliases_.contains(alias))
    throw ValueError("OpRegistry::add_alias: `" + alias + "` is already registered");
  aliases_.emplace(std::move(alias), std::move(target));
}

const OpInfo* OpRegistry::find(std::string_view name) const {
  if (auto it = ops_.find(name); it != ops_.end()) return &it->second;
  if (auto a = aliases_.find(name); a != aliases_.end()) return &ops_.find(a->second)->second;
  return nullptr;
}

bool OpRegistry::arity_ok(const OpInfo& info, std::size_t n) {
  const auto k = static_cast<int>(n);
  return k >= info.min_inputs && (info.max_inputs < 0 || k <= info.max_inputs);
}

namespace {
// Converts `value` to the kind the parameter wants, where that is lossless.
std::optional<PropValue> coerce(const ParamSpec& spec, const PropValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    if (spec.nullable) return value;
    return std::nullopt;
  }
  switch (spec.kind) {
    case ParamKind::Bool:
      if (std::holds_alternative<bool>(value)) return value;
      break;
    case ParamKind::Int:
      if (std::holds_alternative<std::int64_t>(value)) return value;
      break;
    case ParamKind::Float:
      if (std::holds_alternative<double>(value)) return value;
      if (auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
      break;
    case ParamKind::String:
      if (std::holds_alternative<std::string>(value)) return value;
      break;
    case ParamKind::Ints:
      if (std::holds_alternative<std::vector<std::int64_t>>(value)) return value;
      if (auto* i = std::get_if<std::int64_t>(&value)) return std::vector<std::int64_t>{*i};
      break;
    case ParamKind::DType:
      if (std::holds_alternative<DType>(value)) return value;
      if (auto* s = std::get_if<std::string>(&value))
        if (auto d = parse_dtype(*s)) return *d;
      break;
  }
  return std::nullopt;
}

std::string param_names(const OpInfo& info) {
  if (info.params.empty()) return "it takes no parameters";
  std::string out = "its parameters are ";
  for (std::size_t i = 0; i < info.params.size(); ++i) {
    if (i) out += ", ";
    out += "`" + info.params[i].name + "`";
  }
  return out;
}
}  // namespace

Props OpRegistry::complete_params(const OpInfo& info, const Props& params) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (params[j].name == params[i].name)
        throw Error(fmt::format("parameter `{}` of op `{}` is given twice", params[i].name,
                                info.name));
    const bool known = std::any_of(info.params.begin(), info.params.end(),
                                   [&](const ParamSpec& s) { return s.name == params[i].name; });
    if (!known)
      throw Error(fmt::format("op `{}` has no parameter `{}`; {}", info.name, params[i].name,
                              param_names(info)));
  }
  Props out;
  out.reserve(info.params.size());
  for (const auto& spec : info.params) {
    const PropValue* given = find_prop(params, spec.name);
    if (!given) {
      if (!spec.default_value)
        throw Error(fmt::format("op `{}` needs parameter `{}` ({})", info.name, spec.name,
                                param_kind_name(spec.kind)));
      out.push_back({spec.name, *spec.default_value});
      continue;
    }
    auto value = coerce(spec, *given);
    if (!value)
      throw Error(fmt::format("parameter `{}` of op `{}` must be {} {}{}, not `{}`", spec.name,
                              info.name, spec.kind == ParamKind::Int ? "an" : "a",
                              param_kind_name(spec.kind),
                              spec.nullable ? " or none" : "", format_prop_value(*given)));
    out.push_back({spec.name, std::move(*value)});
  }
  return out;
}

OpPtr OpRegistry::make(std::string_view name, const Props& params) const {
  const OpInfo* info = find(name);
  if (!info) {
    std::string msg = fmt::format("unknown op `{}`", name);
    const auto close = suggest(name);
    if (!close.empty()) msg += fmt::format("; did you mean `{}`?", close.front());
    throw Error(msg);
  }
  return info->factory(complete_params(*info, params));
}

std::vector<const OpInfo*> OpRegistry::all() const {
  std::vector<const OpInfo*> out;
  out.reserve(ops_.size());
  for (const auto& [name, info] : ops_) out.push_back(&info);
  return out;
}


std::vector<std::string> OpRegistry::suggest(std::string_view name) const {
  std::vector<std::string> known;
  for (const auto& [op_name, info] : ops_) known.push_back(op_name);
  for (const auto& [alias, target] : aliases_) known.push_back(alias);
  std::sort(known.begin(), known.end());  // ties alphabetical
  return near_names(name, known);
}

}  // namespace rw
