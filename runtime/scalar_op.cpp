// The scalar operation table and the dtype rules.
#include "runtime/scalar_op.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

#include "support/error.hpp"

namespace rw {

namespace {

using R = DTypeRule;

// Indexed by ScalarOp; the order must match the enum (checked below).
constexpr std::array<ScalarOpInfo, std::size(kAllScalarOps)> kInfo = {{
    {"add", 2, R::Promote, true, true, 1},         {"sub", 2, R::Promote, false, false, 1},
    {"mul", 2, R::Promote, true, true, 1},         {"true_div", 2, R::Float, false, true, 2},
    {"int_div", 2, R::PromoteInt, false, true, 4}, {"mod", 2, R::PromoteInt, false, true, 4},
    {"pow", 2, R::PromoteInt, false, true, 16},    {"neg", 1, R::Promote, false, false, 1},
    {"abs", 1, R::Promote, false, true, 1},        {"sign", 1, R::Promote, false, false, 1},
    {"sqr", 1, R::Promote, false, true, 1},        {"reciprocal", 1, R::Float, false, true, 2},
    {"maximum", 2, R::Promote, true, true, 1},     {"minimum", 2, R::Promote, true, true, 1},
    {"exp", 1, R::Float, false, true, 8},          {"exp2", 1, R::Float, false, true, 8},
    {"expm1", 1, R::Float, false, true, 12},       {"log", 1, R::Float, false, true, 8},
    {"log2", 1, R::Float, false, true, 8},         {"log10", 1, R::Float, false, true, 8},
    {"log1p", 1, R::Float, false, true, 12},       {"sqrt", 1, R::Float, false, true, 2},
    {"sigmoid", 1, R::Float, false, true, 10},     {"softplus", 1, R::Float, false, true, 20},
    {"sin", 1, R::Float, false, true, 12},         {"cos", 1, R::Float, false, true, 12},
    {"tan", 1, R::Float, false, true, 16},         {"sinh", 1, R::Float, false, true, 16},
    {"cosh", 1, R::Float, false, true, 16},        {"tanh", 1, R::Float, false, true, 16},
    {"arcsin", 1, R::Float, false, true, 16},      {"arccos", 1, R::Float, false, true, 16},
    {"arctan", 1, R::Float, false, true, 16},      {"erf", 1, R::Float, false, true, 12},
    {"erfc", 1, R::Float, false, true, 12},
    {"erfinv", 1, R::Float, false, true, 30},
    {"erfcinv", 1, R::Float, false, true, 40},
    {"erfcx", 1, R::Float, false, true, 30},
    {"gammaln", 1, R::Float, false, true, 30},
    {"digamma", 1, R::Float, false, true, 40},
    {"trigamma", 1, R::Float, false, true, 40},
    {"betaln", 2, R::Float, false, true, 60},
    {"log1mexp", 1, R::Float, false, true, 20},
    {"logit", 1, R::Float, false, true, 16},
    {"xlogy", 2, R::Float, false, true, 10},
    {"xlog1py", 2, R::Float, false, true, 14},
    {"softsign", 1, R::Float, false, true, 3},
    {"gelu", 1, R::Float, false, true, 14},
    {"relu", 1, R::Promote, false, true, 1},
    {"i0", 1, R::Float, false, true, 40},
    {"i1", 1, R::Float, false, true, 40},
    {"floor", 1, R::Float, false, true, 1},
    {"ceil", 1, R::Float, false, true, 1},         {"round", 1, R::Float, false, true, 2},
    {"lt", 2, R::Compare, false, true, 1},         {"gt", 2, R::Compare, false, true, 1},
    {"le", 2, R::Compare, false, true, 1},         {"ge", 2, R::Compare, false, true, 1},
    {"eq", 2, R::Compare, true, true, 1},          {"neq", 2, R::Compare, true, true, 1},
    {"and", 2, R::Logic, true, true, 1},           {"or", 2, R::Logic, true, true, 1},
    {"xor", 2, R::Logic, true, true, 1},           {"not", 1, R::Logic, false, true, 1},
    {"switch", 3, R::Switch, false, true, 1},      {"clip", 3, R::Promote, false, true, 1},
    {"cast", 1, R::Cast, false, true, 1},          {"identity", 1, R::Promote, false, true, 1},
}};

constexpr bool table_matches_enum() {
  for (std::size_t i = 0; i < std::size(kAllScalarOps); ++i)
    if (static_cast<std::size_t>(kAllScalarOps[i]) != i) return false;
  return static_cast<std::size_t>(ScalarOp::Identity) + 1 == kInfo.size();
}
static_assert(table_matches_enum(), "kInfo and kAllScalarOps must follow the ScalarOp order");

std::string dtype_list(std::span<const DType> ts) {
  std::string out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (i) out += i + 1 == ts.size() ? " and " : ", ";
    out += dtype_name(ts[i]);
  }
  return out;
}

DType promote_all(std::span<const DType> ts) {
  DType t = ts[0];
  for (std::size_t i = 1; i < ts.size(); ++i) t = promote(t, ts[i]);
  return t;
}

}  // namespace

const ScalarOpInfo& scalar_op_info(ScalarOp op) {
  const auto i = static_cast<std::size_t>(op);
  RW_ASSERT(i < kInfo.size(), "scalar_op_info: a ScalarOp outside the enumeration");
  return kInfo[i];
}

std::optional<ScalarOp> parse_scalar_op(std::string_view name) {
  for (ScalarOp op : kAllScalarOps)
    if (kInfo[static_cast<std::size_t>(op)].name == name) return op;
  return std::nullopt;
}

ScalarSignature scalar_signature(ScalarOp op, std::span<const DType> inputs,
                                 std::optional<DType> cast_to) {
  const ScalarOpInfo& info = scalar_op_info(op);
  if (static_cast<int>(inputs.size()) != info.arity)
    throw ValueError(fmt::format("`{}` takes {} operand{}, got {}", info.name, info.arity,
                                 info.arity == 1 ? "" : "s", inputs.size()));
  ScalarSignature sig;
  switch (info.rule) {
    case R::Cast: {
      if (!cast_to) throw ValueError("`cast` needs a target dtype");
      sig.operands.push_back(inputs[0]);
      sig.result = *cast_to;
      return sig;
    }
    case R::Switch: {
      const DType t = promote(inputs[1], inputs[2]);
      sig.operands = {DType::Bool, t, t};
      sig.result = t;
      return sig;
    }
    default: break;
  }
  DType t = promote_all(inputs);
  if (is_bool(t) && !info.bool_ok)
    throw ValueError(fmt::format("`{}` is not defined for bool operands{}", info.name,
                                 op == ScalarOp::Sub   ? "; use `xor`"
                                 : op == ScalarOp::Neg ? "; use `not`"
                                                       : ""));
  switch (info.rule) {
    case R::Promote: sig.result = t; break;
    case R::PromoteInt:
      if (is_bool(t)) t = DType::Int8;
      sig.result = t;
      break;
    case R::Float:
      t = float_result(t);
      sig.result = t;
      break;
    case R::Compare: sig.result = DType::Bool; break;
    case R::Logic:
      if (is_float(t))
        throw ValueError(fmt::format("`{}` needs bool or integer operands, got {}", info.name,
                                     dtype_list(inputs)));
      sig.result = t;
      break;
    case R::Switch:
    case R::Cast: break;  // handled above
  }
  sig.operands.assign(inputs.size(), t);
  return sig;
}

}  // namespace rw
