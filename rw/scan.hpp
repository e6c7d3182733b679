// rw::scan: make_scan with the body compiled in the library's default mode.
#pragma once

#include <vector>

#include "engine/compile/scan.hpp"
#include "rw/function.hpp"

namespace rw {

/// Builds a loop (Aesara's scan; docs/scan.md): see make_scan. The body is
/// compiled with default_mode()'s rewrites unless `options.rewrite` is set.
///
///     auto r = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; },
///                       {x}, {s0});                  // s_t = x_t + s_{t-1}
///     rw::Function f = rw::function({x, s0}, r.output());
inline ScanResult scan(const ScanFn& fn, std::vector<ScanSequence> sequences = {},
                       std::vector<ScanOutput> outputs_info = {},
                       std::vector<Var> non_sequences = {}, ScanOptions options = {}) {
  if (!options.rewrite) options.rewrite = default_rewrite();
  return make_scan(fn, std::move(sequences), std::move(outputs_info), std::move(non_sequences),
                   std::move(options));
}

}  // namespace rw
