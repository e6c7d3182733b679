// rw::function: compile_function with the library's default mode.
#pragma once

#include <array>
#include <concepts>
#include <vector>

#include "engine/compile/function.hpp"

namespace rw {

/// Compiles a function as DESIGN.md writes it:
/// `rw::Function f = rw::function({x}, {loss, g[0]}); auto [l, gw] = f(t);`
///
/// The same as compile_function, with the library's default mode filled in
/// when `options.rewrite` is empty. The default mode is where the standard
/// rewrites are attached; until the rewrite database exists it runs none.
inline Function<std::vector<Tensor>> function(std::vector<In> inputs, std::vector<Var> outputs,
                                              FunctionOptions options = {}) {
  return compile_function(std::move(inputs), std::move(outputs), std::move(options));
}
template <std::size_t N>
Function<std::array<Tensor, N>> function(std::vector<In> inputs, const Var (&outputs)[N],
                                         FunctionOptions options = {}) {
  return compile_function(std::move(inputs), outputs, std::move(options));
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> function(std::vector<In> inputs, const V& output, FunctionOptions options = {}) {
  return compile_function(std::move(inputs), output, std::move(options));
}

}  // namespace rw
