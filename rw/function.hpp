// rw::function: compile_function with the library's default mode, or a mode
// given per call.
#pragma once

#include <array>
#include <concepts>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/compile/function.hpp"
#include "engine/rewrite/mode.hpp"

namespace rw {

/// Hears the diagnostics of a pipeline that stopped early (FunctionOptions::on_rewrite_stop).
using RewriteStopHook = std::function<void(const std::string&)>;

/// The rewrite hook that runs `mode`'s pipeline, built once here (a
/// snapshot of its database now) and reused for every graph it is given.
/// When a pass stops early (PassReport::ok() is false), `on_stop` hears its
/// diagnostics; without one they go to std::cerr as a warning.
GraphRewrite rewrite_with(const Mode& mode, RewriteStopHook on_stop = {});

/// default_mode()'s pipeline as a rewrite hook, built once and shared; an
/// early stop is written to std::cerr.
const GraphRewrite& default_rewrite();

namespace detail {
/// `options` with its rewrite hook: `mode`'s when given (an error when
/// `options.rewrite` is set too), else `options.rewrite`, else the default;
/// the mode's hooks report an early stop to `options.on_rewrite_stop`.
/// With `options.debug_mode` (or RW_FLAGS=debug_mode), its `name_rewrite`
/// becomes a bisection of that pipeline over `outputs` of `inputs`.
FunctionOptions with_mode(FunctionOptions options, const Mode* mode, std::span<const In> inputs,
                          std::span<const Var> outputs);
}  // namespace detail

/// Compiles a function as DESIGN.md writes it:
/// `rw::Function f = rw::function({x}, {loss, g[0]}); auto [l, gw] = f(t);`
///
/// The same as compile_function, with default_mode() (the standard rewrites,
/// `fast_run`) run on the graph when `options.rewrite` is empty.
inline Function<std::vector<Tensor>> function(std::vector<In> inputs, std::vector<Var> outputs,
                                              FunctionOptions options = {}) {
  options = detail::with_mode(std::move(options), nullptr, inputs, outputs);
  return compile_function(std::move(inputs), std::move(outputs), std::move(options));
}
template <std::size_t N>
Function<std::array<Tensor, N>> function(std::vector<In> inputs, const Var (&outputs)[N],
                                         FunctionOptions options = {}) {
  options = detail::with_mode(std::move(options), nullptr, inputs, outputs);
  return compile_function(std::move(inputs), outputs, std::move(options));
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> function(std::vector<In> inputs, const V& output, FunctionOptions options = {}) {
  options = detail::with_mode(std::move(options), nullptr, inputs,
                              std::span<const Var>(&static_cast<const Var&>(output), 1));
  return compile_function(std::move(inputs), output, std::move(options));
}

/// The same, rewriting with `mode` instead of the default:
/// `rw::function({x}, {y}, {}, rw::default_mode().excluding({"stabilize"}))`,
/// `rw::function({x}, {y}, {}, rw::Mode::none(rw::standard_db()))`. Throws
/// rw::Error when `options.rewrite` is set as well.
inline Function<std::vector<Tensor>> function(std::vector<In> inputs, std::vector<Var> outputs,
                                              FunctionOptions options, const Mode& mode) {
  options = detail::with_mode(std::move(options), &mode, inputs, outputs);
  return compile_function(std::move(inputs), std::move(outputs), std::move(options));
}
template <std::size_t N>
Function<std::array<Tensor, N>> function(std::vector<In> inputs, const Var (&outputs)[N],
                                         FunctionOptions options, const Mode& mode) {
  options = detail::with_mode(std::move(options), &mode, inputs, outputs);
  return compile_function(std::move(inputs), outputs, std::move(options));
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> function(std::vector<In> inputs, const V& output, FunctionOptions options,
                          const Mode& mode) {
  options = detail::with_mode(std::move(options), &mode, inputs,
                              std::span<const Var>(&static_cast<const Var&>(output), 1));
  return compile_function(std::move(inputs), output, std::move(options));
}

}  // namespace rw
