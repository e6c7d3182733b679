// NodeRewriter: a rewrite of one Apply node, dispatched by the Op kinds it
// tracks; the typed OpRewriter<OpT> base; and rewriters made from a function.
#pragma once

#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/rewrite/context.hpp"
#include "engine/rewrite/node_filter.hpp"
#include "engine/rewrite/rewrite_result.hpp"

namespace rw {

/// `NodeRewriter::depth()` of a rewriter that may read anything (drivers then
/// re-sweep the whole graph until nothing changes, as Aesara does).
inline constexpr int kAnyDepth = std::numeric_limits<int>::max();

/// The Op kinds a node rewriter applies to, by which drivers dispatch it: Op
/// names (`"div"`), Op classes, or every Op. Drivers resolve these once into an
/// index, so trying a node costs one lookup of its Op's name, not a comparison
/// per rewriter.
class Tracks {
 public:
  /// Nodes whose Op has one of these names. Throws RewriteError when empty
  /// (use `Tracks::any()` for every Op).
  Tracks(std::initializer_list<std::string_view> op_names);
  /// Names known at run time (from a rules file); throws RewriteError when empty.
  explicit Tracks(std::vector<std::string> op_names);
  /// Every node.
  static Tracks any() { return Tracks(); }
  /// Nodes whose Op's dynamic class is exactly OpT (not a class derived from it).
  template <class OpT> static Tracks op_class() {
    Tracks t;
    t.classes_.emplace_back(typeid(OpT));
    return t;
  }
  /// These tracks and also nodes whose Op has one of `op_names`.
  Tracks& and_ops(std::initializer_list<std::string_view> op_names);

  /// True for `Tracks::any()`.
  bool tracks_any() const { return names_.empty() && classes_.empty(); }
  /// The tracked names and classes.
  const std::vector<std::string>& op_names() const { return names_; }
  const std::vector<std::type_index>& op_classes() const { return classes_; }
  /// Whether a node with this Op is tracked.
  bool matches(const Op& op) const;
  /// `any`, or the names and classes: `div, mul`.
  std::string to_string() const;

 private:
  Tracks() = default;
  std::vector<std::string> names_;
  std::vector<std::type_index> classes_;
};

/// A rewrite of one node (Aesara's NodeRewriter, MLIR's RewritePattern).
///
/// `transform` looks at a node and returns the replacements it proposes or the
/// reason it does not apply; it never changes the graph itself — the driver
/// makes every change through the FunctionGraph's validated replace, so that a
/// refused change leaves the graph as it was.
///
/// Besides its name and tracked Ops a rewriter declares:
///  - `depth`: how many levels of inputs below the node `transform` reads (0:
///    the node, its Op, its input variables with their types and constness,
///    and the uses of its own outputs; 1: also the nodes computing those
///    inputs; …). After a change the driver re-tries exactly the nodes within
///    that distance above it, instead of sweeping the whole graph. A rewriter
///    that also reads the uses of variables below its node (a pattern that
///    matches single-use intermediates only) says so with `set_reads_uses()`;
///    one that reads anything else must keep `kAnyDepth`, the default, which
///    is always safe.
///  - `benefit`: rewriters of the same node are tried in decreasing benefit,
///    then in the order they were given.
///  - `filter`: a necessary condition on the node (its arity, what computes
///    its inputs, which are constants; see NodeFilter), which drivers check
///    before calling `transform` when nobody listens to the trace. A node the
///    filter refuses counts as a failed attempt; `transform` must fail on it.
class NodeRewriter {
 public:
  virtual ~NodeRewriter() = default;
  NodeRewriter(const NodeRewriter&) = delete;
  NodeRewriter& operator=(const NodeRewriter&) = delete;

  /// The name trace events and profiles use, and the database registers.
  const std::string& name() const { return name_; }
  /// What it is tried on, how deep it reads, and its benefit (see above).
  const Tracks& tracks() const { return tracks_; }
  int depth() const { return depth_; }
  int benefit() const { return benefit_; }
  /// Whether `transform` reads the uses of variables below its node.
  bool reads_uses() const { return reads_uses_; }
  /// What a node must look like for `transform` to apply (by default: anything).
  const NodeFilter& filter() const { return filter_; }

  /// The replacements for `node`'s outputs (or other variables), or why not.
  /// `node` is in `fgraph`. May throw rw::Error (e.g. a TypeError from
  /// make_node), which drivers record as a failed attempt.
  virtual RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                                  const RewriteContext& ctx) const = 0;
  /// Attaches the features `transform` relies on.
  virtual void add_requirements(FunctionGraph& fgraph) const { (void)fgraph; }
  /// One line saying what the rewriter does: `(x * y) / y -> x`.
  virtual std::string describe() const { return name_; }

 protected:
  /// Throws RewriteError when `name` is empty or `depth` negative.
  NodeRewriter(std::string name, Tracks tracks, int depth = kAnyDepth, int benefit = 1);
  /// Declares that `transform` reads the uses of variables within its depth.
  void set_reads_uses(bool reads = true) { reads_uses_ = reads; }
  /// Declares a necessary condition for `transform` to apply (see NodeFilter).
  void set_filter(NodeFilter filter) { filter_ = std::move(filter); }

 private:
  std::string name_;
  Tracks tracks_;
  int depth_;
  int benefit_;
  bool reads_uses_ = false;
  NodeFilter filter_;
};

/// Shared, immutable node rewriters.
using NodeRewriterPtr = std::shared_ptr<const NodeRewriter>;

/// A node rewriter typed on its root Op class (MLIR's OpRewritePattern): it
/// tracks nodes of Op class OpT (plus the names given, if any) and implements
/// `rewrite` with the Op already cast.
template <class OpT> class OpRewriter : public NodeRewriter {
 protected:
  explicit OpRewriter(std::string name, int depth = kAnyDepth, int benefit = 1)
      : NodeRewriter(std::move(name), Tracks::op_class<OpT>(), depth, benefit) {}
  /// The rewrite of a node whose Op is `op`.
  virtual RewriteResult rewrite(FunctionGraph& fgraph, Apply& node, const OpT& op,
                                const RewriteContext& ctx) const = 0;

 public:
  /// Casts the Op and calls `rewrite`.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const final {
    const auto* op = dynamic_cast<const OpT*>(&node.op());
    if (!op) return RewriteResult::fail("the node's op is not of the tracked class");
    return rewrite(fgraph, node, *op, ctx);
  }
};

/// The signature of a node rewriter written as a function.
using NodeRewriteFn =
    std::function<RewriteResult(FunctionGraph&, Apply&, const RewriteContext&)>;

/// A node rewriter made from a function (Aesara's @node_rewriter).
class FunctionNodeRewriter final : public NodeRewriter {
 public:
  /// Throws RewriteError for an empty name or function, or a negative depth.
  FunctionNodeRewriter(std::string name, Tracks tracks, NodeRewriteFn fn, int depth = kAnyDepth,
                       int benefit = 1, std::string description = {});
  /// Calls the function.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// The description given, or the name.
  std::string describe() const override;

 private:
  NodeRewriteFn fn_;
  std::string description_;
};

/// `std::make_shared<FunctionNodeRewriter>(...)`.
NodeRewriterPtr make_node_rewriter(std::string name, Tracks tracks, NodeRewriteFn fn,
                                   int depth = kAnyDepth, int benefit = 1,
                                   std::string description = {});

}  // namespace rw
