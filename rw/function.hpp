// rw::function: compile_function with the library's default mode, or a mode
// given per call.
#pragma once

#include <array>
#include <concepts>
#include <functional>
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
FunctionOptions with_mode(FunctionOptions options, const Mode* mode);
}  // namespace detail

/// Compiles a function as DESIGN.md writes it:
/// `rw::Function f = rw::function({x}, {loss, g[0]}); auto [l, gw] = f(t);`
///
/// The same as compile_function, with default_mode() (the standard rewrites,
/// `fast_run`) run on the graph when `options.rewrite` is empty.
inline Function<std::vector<Tensor>> function(std::vector<In> inputs, std::vector<Var> outputs,
                                              FunctionOptions options = {}) {
  return compile_function(std::move(inputs), std::move(outputs),
                          detail::with_mode(std::move(options), nullptr));
}
template <std::size_t N>
Function<std::array<Tensor, N>> function(std::vector<In> inputs, const Var (&outputs)[N],
                                         FunctionOptions options = {}) {
  return compile_function(std::move(inputs), outputs,
                          detail::with_mode(std::move(options), nullptr));
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> function(std::vector<In> inputs, const V& output, FunctionOptions options = {}) {
  return compile_function(std::move(inputs), output,
                          detail::with_mode(std::move(options), nullptr));
}

/// The same, rewriting with `mode` instead of the default:
/// `rw::function({x}, {y}, {}, rw::default_mode().excluding({"stabilize"}))`,
/// `rw::function({x}, {y}, {}, rw::Mode::none(rw::standard_db()))`. Throws
/// rw::Error when `options.rewrite` is set as well.
inline Function<std::vector<Tensor>> function(std::vector<In> inputs, std::vector<Var> outputs,
                                              FunctionOptions options, const Mode& mode) {
  return compile_function(std::move(inputs), std::move(outputs),
                          detail::with_mode(std::move(options), &mode));
}
template <std::size_t N>
Function<std::array<Tensor, N>> function(std::vector<In> inputs, const Var (&outputs)[N],
                                         FunctionOptions options, const Mode& mode) {
  return compile_function(std::move(inputs), outputs, detail::with_mode(std::move(options), &mode));
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> function(std::vector<In> inputs, const V& output, FunctionOptions options,
                          const Mode& mode) {
  return compile_function(std::move(inputs), output, detail::with_mode(std::move(options), &mode));
}

}  // namespace rw
