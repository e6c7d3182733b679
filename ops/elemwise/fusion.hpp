// Elementwise fusion: connected elementwise nodes become one Composite, and a
// reduction of an elementwise result becomes one CompositeReduce.
#pragma once

#include <cstddef>
#include <string>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

/// Limits of the fusion pass.
struct FusionOptions {
  /// The most inputs a Composite may read (constants of one element are
  /// folded into the program and do not count). A node whose fusion would
  /// exceed it starts a Composite of its own.
  std::size_t max_inputs = 32;
  /// Whether `sum(exp(x) * y)` and its kin become one CompositeReduce.
  bool fuse_reductions = true;
  /// Whether a group may take in a node whose value other nodes (or the
  /// graph's outputs) also read, making that value an extra output of the
  /// Composite. Off: such a node stays a node of its own.
  bool multi_output = true;
};

/// Merges connected elementwise nodes (Elemwise, Fill, Composite, and
/// zeros_like/ones_like, which are constants of their input's shape; not nodes
/// already in place) into Composites (Aesara's FusionOptimizer), then turns
/// reductions of an elementwise result into CompositeReduce.
///
/// Groups grow from the last node of the graph towards its inputs. A node
/// joins a group when
///   - its outputs have the group's rank and broadcast pattern (the same axes
///     of static extent 1), so that it runs over the same loop; inputs that
///     broadcast are read broadcast, never a node's output;
///   - each value it computes that is also read outside the group (or
///     returned) can be exported: the Composite gets it as an extra output,
///     unless a reader outside leads back into the group (which would make
///     the Composite feed itself; found by a bounded forward search) or
///     `multi_output` is off, in which case the node stays outside and starts
///     its own group. Composites have the outputs of the node the group grew
///     from, then the exported values in graph order; a value used twice
///     inside a group is computed once in the program;
///   - the group still reads at most `max_inputs` variables.
/// Constants with one element become constants of the program. A group of
/// one node is left as it is. The result does not depend on addresses: the
/// same graph gives the same Composites, inputs in the same order.
class ElemwiseFusion final : public GraphRewriter {
 public:
  explicit ElemwiseFusion(FusionOptions options = {}, std::string name = "elemwise_fusion");
  const FusionOptions& options() const { return options_; }
  /// Replaces each group's outputs with a Composite's; counts one application
  /// per Composite or CompositeReduce made.
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;

 private:
  FusionOptions options_;
};

/// Registers ElemwiseFusion in a standard database (make_standard_db) at
/// position::kFusion, tagged `fast_run` and `fusion`. It runs before
/// `merge2` (same position, names in order), which then joins equal
/// Composites.
void register_fusion_rewrites(SequenceDB& db, FusionOptions options = {});

}  // namespace rw
