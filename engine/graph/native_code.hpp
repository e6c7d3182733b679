// The C++ source an Op gives for its computation on one node (Aesara's COp
// interface), which the native backend compiles into a function's module.
#pragma once

#include <string>
#include <vector>

namespace rw {

/// The names a node's code is written over (Aesara's `sub` and variable
/// names). The code is the body of
///
///     int entry(rw_ctx* ctx, const rw_tensor* in, rw_tensor* out)
///
/// (runtime/native_abi.hpp): `in[i]` is input i, `out[k]` is filled by
/// `ctx->alloc(ctx, k, ndim, shape, &out[k])`, which allocates output k
/// (contiguous, its type's dtype) or hands it the input it overwrites.
/// The body returns RW_OK, RW_FALLBACK (the interpreter runs the node
/// instead: for a layout the code does not handle) or
/// `rw_fail(ctx, "message")`.
struct NativeNames {
  /// Unique in the module: prefix the names of support code that is
  /// particular to this node.
  std::string prefix;
  /// "in[0]", "in[1]", …: expressions of type `const rw_tensor&`.
  std::vector<std::string> inputs;
  /// "out[0]", …: expressions of type `rw_tensor&`.
  std::vector<std::string> outputs;
};

/// C++ source for one node: Aesara's c_code, c_support_code, c_headers,
/// c_compile_args and c_code_cache_version, as fields. The module is
/// compiled with `-O3 -march=native -fPIC -shared -std=c++20
/// -ffp-contract=off -fvisibility=hidden`; its prelude declares the C
/// interface and includes <cstdint> only.
struct NativeCode {
  /// The entry point's body (see NativeNames).
  std::string c_code;
  /// Definitions at namespace scope, before the entry point. Texts that
  /// several nodes share are written once.
  std::string c_support_code;
  /// Headers to include: "cmath" gives `#include <cmath>`.
  std::vector<std::string> c_headers;
  /// Extra compiler arguments (each kept once per module).
  std::vector<std::string> c_compile_args;
  /// Mixed into the cache key: change it when code outside the text (a
  /// header the code includes) changes what it computes.
  std::string c_code_cache_version;
  /// Functions of the host process the code calls, as `ctx->fns[k]` (cast
  /// back to their type): how generated code reaches the runtime's kernels
  /// without linking against it.
  std::vector<const void*> host_functions;
};

}  // namespace rw
