// Parameter checking for calls in rule and graph files.
#include "engine/dsl/detail/params.hpp"

#include <fmt/format.h>

#include "engine/dsl/detail/suggest.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/graph/errors.hpp"

namespace rw::dsl::detail {

namespace {

// A value of the parameter's kind, standing in for a variable while the
// other parameters are checked.
PropValue stand_in_value(const ParamSpec& spec) {
  if (spec.default_value) return *spec.default_value;
  switch (spec.kind) {
    case ParamKind::Bool:
      return false;
    case ParamKind::Int:
      return std::int64_t{0};
    case ParamKind::Float:
      return 0.0;
    case ParamKind::String:
      return std::string();
    case ParamKind::Ints:
      return std::vector<std::int64_t>{};
    case ParamKind::DType:
      return DType::Float64;
  }
  return std::monostate{};
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string inputs_text(const OpInfo& info) {
  const auto lo = static_cast<std::size_t>(info.min_inputs);
  if (info.max_inputs < 0) return fmt::format("at least {}", plural(lo, "input", "inputs"));
  if (info.min_inputs == info.max_inputs) return plural(lo, "input", "inputs");
  return fmt::format("{} to {} inputs", info.min_inputs, info.max_inputs);
}

std::string arity_message(const OpInfo& info, std::size_t given) {
  return fmt::format("op `{}` takes {}, but {} {} given", info.name, inputs_text(info), given,
                     given == 1 ? "is" : "are");
}

std::optional<std::vector<ParamSlot>> check_params(const OpInfo& info, const ast::Call& call,
                                                   bool allow_variables, const SourcePtr& file,
                                                   std::vector<Diagnostic>& out) {
  const std::size_t errors_before = out.size();
  std::vector<std::string> spec_names;
  for (const ParamSpec& s : info.params) spec_names.push_back(s.name);

  std::vector<ParamSlot> slots(info.params.size());
  for (std::size_t i = 0; i < info.params.size(); ++i) {
    slots[i].spec = &info.params[i];
    slots[i].span = call.callee.span;
  }
  std::vector<const ast::Param*> seen(info.params.size(), nullptr);

  for (const ast::Param& p : call.params) {
    std::size_t k = 0;
    while (k < info.params.size() && info.params[k].name != p.name.text) ++k;
    if (k == info.params.size()) {
      std::string msg = fmt::format("op `{}` has no parameter `{}`", info.name, p.name.text);
      const std::string hint = did_you_mean(p.name.text, spec_names);
      if (!hint.empty()) {
        msg += hint;
      } else if (spec_names.empty()) {
        msg += "; it takes no parameters";
      } else {
        msg += "; its parameters are ";
        for (std::size_t j = 0; j < spec_names.size(); ++j)
          msg += fmt::format("{}`{}`", j ? ", " : "", spec_names[j]);
      }
      out.push_back(make_error(file, p.name.span, std::move(msg)));
      continue;
    }
    if (seen[k]) {
      Diagnostic d =
          make_error(file, p.name.span, fmt::format("parameter `{}` is given twice", p.name.text));
      d.notes.push_back(make_note(file, seen[k]->name.span, "first given here"));
      out.push_back(std::move(d));
      continue;
    }
    seen[k] = &p;
    ParamSlot& slot = slots[k];
    slot.written = true;
    slot.span = p.value.span;

    const ast::ParamValue& v = p.value;
    std::optional<PropValue> literal;
    switch (v.kind) {
      case ast::ParamValue::Kind::Int:
        literal = v.int_value;
        break;
      case ast::ParamValue::Kind::Float:
        literal = v.float_value;
        break;
      case ast::ParamValue::Kind::String:
        literal = v.text;
        break;
      case ast::ParamValue::Kind::Tuple: {
        std::vector<std::int64_t> ints;
        bool ok = true;
        for (const ast::TupleItem& item : v.items) {
          if (const auto* n = std::get_if<std::int64_t>(&item.value)) {
            ints.push_back(*n);
          } else if (auto w = tuple_word_value(std::get<std::string>(item.value))) {
            ints.push_back(*w);
          } else {
            out.push_back(make_error(
                file, item.span,
                fmt::format("unknown tuple element `{}`; a tuple holds integers, `x` (a new "
                            "broadcastable axis) and `i` (an index taken from an input)",
                            std::get<std::string>(item.value))));
            ok = false;
          }
        }
        if (!ok) continue;
        literal = std::move(ints);
        break;
      }
      case ast::ParamValue::Kind::Word:
        if (auto w = word_value(v.text)) {
          literal = *w;
          break;
        }
        if (!allow_variables) {
          out.push_back(make_error(
              file, v.span,
              fmt::format("unknown value `{}` for parameter `{}`; a value is a number, a tuple, "
                          "a quoted string, `true`, `false`, `none`, `all` or a dtype name",
                          v.text, p.name.text)));
          continue;
        }
        slot.variable = v.text;
        continue;
      case ast::ParamValue::Kind::Variable:
        if (!allow_variables) {
          out.push_back(make_error(
              file, v.span,
              fmt::format("`?{}` is a pattern variable; graph files give parameter values",
                          v.text)));
          continue;
        }
        slot.variable = v.text;
        continue;
    }
    // The registry's own check, on this parameter alone, so that the error
    // points at it.
    OpInfo one;
    one.name = info.name;
    one.params = {info.params[k]};
    try {
      slot.value = OpRegistry::complete_params(one, {{p.name.text, *literal}}).front().value;
    } catch (const Error& e) {
      out.push_back(make_error(file, v.span, e.what()));
    }
  }
  if (out.size() != errors_before) return std::nullopt;

  // Now what only the whole call can tell: a required parameter missing.
  Props given;
  for (const ParamSlot& s : slots)
    if (s.written) given.push_back({s.spec->name, s.value ? *s.value : stand_in_value(*s.spec)});
  try {
    const Props complete = OpRegistry::complete_params(info, given);
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (!slots[i].written) slots[i].value = complete[i].value;
  } catch (const Error& e) {
    out.push_back(make_error(file, call.callee.span, e.what()));
    return std::nullopt;
  }
  return slots;
}

}  // namespace rw::dsl::detail
