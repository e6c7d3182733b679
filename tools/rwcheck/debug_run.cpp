// rwcheck --debug-mode.
#include "tools/rwcheck/debug_run.hpp"

#include <exception>
#include <vector>

#include <fmt/format.h>

#include "engine/compile/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/random_type.hpp"
#include "engine/graph/type.hpp"
#include "runtime/rng.hpp"
#include "rw/function.hpp"

namespace rw::check {

namespace {

/// A random value of `v`'s type, or nullopt with `why` when rwcheck makes none.
std::optional<Tensor> random_value(const Var& v, Rng& rng, std::uint64_t seed, std::string& why) {
  if (const TensorType* t = v->tensor_type()) {
    Shape shape;
    for (std::int64_t e : t->shape()) shape.push_back(e == kUnknownDim ? 3 : e);
    const std::span<const std::int64_t> s(shape.data(), shape.size());
    const DType d = t->dtype();
    if (is_float(d)) return rng.uniform(s, -2.0, 2.0, d);
    if (is_bool(d)) return rng.integers(s, 0, 2, DType::Int64).astype(d);
    return rng.integers(s, 0, 4, d);
  }
  if (v->type()->equals(*RandomGeneratorType::make())) return RandomGeneratorType::seed_value(seed);
  why = fmt::format("input {} has type {}, for which rwcheck draws no random value", describe(*v),
                    v->type()->to_string());
  return std::nullopt;
}

}  // namespace

DebugRun debug_run(std::span<const Var> inputs, std::span<const Var> outputs, const Mode& mode,
                   std::uint64_t seed) {
  DebugRun run;
  Rng rng(seed);
  std::vector<Tensor> args;
  std::vector<In> ins;
  for (const Var& v : inputs) {
    std::string why;
    std::optional<Tensor> value = random_value(v, rng, seed, why);
    if (!value) {
      run.finding = why;
      return run;
    }
    run.arguments += fmt::format("{}{} {} of shape {}", run.arguments.empty() ? "" : ", ",
                                 describe(*v), dtype_short_name(value->dtype()),
                                 shape_to_string(value->shape()));
    args.push_back(std::move(*value));
    ins.emplace_back(v);
  }
  try {
    auto f = rw::function(std::move(ins), std::vector<Var>(outputs.begin(), outputs.end()),
                          {.on_unused_input = UnusedInput::Ignore, .debug_mode = DebugMode{}},
                          mode);
    (void)f.call(args);
    run.ok = true;
  } catch (const DebugModeError& e) {
    run.finding = e.what();
  } catch (const std::exception& e) {
    run.finding = fmt::format("the graph could not be run on these arguments: {}", e.what());
  }
  return run;
}

}  // namespace rw::check
