// The interface through which shape-only rewrites ask for a variable's shape
// (Aesara's ShapeFeature), a type-only implementation, and RequireFeature,
// the pass that attaches a feature a pipeline needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/graph/feature.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

/// What a rewrite may ask about shapes. The rewrite layer only defines the
/// questions; the Op library answers them with shape Ops (a feature that
/// tracks `infer_shape` of every node), and `StaticShapeFeature` answers from
/// static types alone. A rewrite finds it with `find_shape_feature(fgraph)`
/// and treats a missing feature as "unknown".
class ShapeFeature : public Feature {
 public:
  /// The extent of `axis` of `var` when it is known before running, else nullopt.
  virtual std::optional<std::int64_t> static_dim(const Variable& var, std::size_t axis) const = 0;
  /// A 0-d int64 variable computing the extent of `axis` of `var`; it may
  /// build new nodes (not yet in the graph). Null when the feature cannot say.
  virtual Var dim(const Variable& var, std::size_t axis) = 0;
  /// True when `a` and `b` are known to have the same shape; false when
  /// unknown or different.
  virtual bool same_shape(const Variable& a, const Variable& b) const = 0;
};

/// The ShapeFeature attached to `fgraph`, or nullptr.
ShapeFeature* find_shape_feature(const FunctionGraph& fgraph);

/// A ShapeFeature that knows what tensor types say: static extents, and
/// constants for them. Two variables have the same shape when they are the same
/// variable or both have the same fully known static shape.
class StaticShapeFeature final : public ShapeFeature {
 public:
  std::optional<std::int64_t> static_dim(const Variable& var, std::size_t axis) const override;
  Var dim(const Variable& var, std::size_t axis) override;
  bool same_shape(const Variable& a, const Variable& b) const override;
};

/// A pass that does nothing but attach a feature when its requirements are
/// added (Aesara's AddFeatureOptimizer), so that a pipeline can place e.g. the
/// shape feature at a position: `RequireFeature("shape", make_shape_feature)`.
/// Nothing is attached when a feature of the same class is already there.
class RequireFeature final : public GraphRewriter {
 public:
  /// Makes the feature to attach.
  using Factory = std::function<std::shared_ptr<Feature>()>;
  /// Throws RewriteError for an empty name or factory.
  RequireFeature(std::string name, Factory factory);
  /// Attaches the feature unless one of its class is attached.
  void add_requirements(FunctionGraph& fgraph) const override;
  /// Does nothing: the work is in add_requirements.
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;

 private:
  Factory factory_;
};

}  // namespace rw
