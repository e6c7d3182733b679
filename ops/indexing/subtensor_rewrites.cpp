// Slice arithmetic and the subtensor rewrites built on it.
#include "ops/indexing/subtensor_rewrites.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "engine/rewrite/equilibrium.hpp"
#include "ops/api.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/shape/alloc.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "ops/shape/join.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw {

namespace {

// Wide enough for any product of two int64 bounds; results are narrowed back.
__extension__ typedef __int128 Wide;

std::optional<std::int64_t> narrow(Wide v) {
  if (v < std::numeric_limits<std::int64_t>::min() || v > std::numeric_limits<std::int64_t>::max())
    return std::nullopt;
  return static_cast<std::int64_t>(v);
}

/// The indices a slice takes from an axis of extent n: start, step, count
/// (Python's slice.indices and its length).
struct Progression {
  Wide start, step, count;
};

std::optional<Progression> progression(const ConstSlice& s, std::int64_t n) {
  const Wide step = s.step.value_or(1);
  if (step == 0) return std::nullopt;
  auto clamp = [&](Wide v, Wide lo, Wide hi) {
    if (v < 0) v += n;
    return std::clamp(v, lo, hi);
  };
  Wide b, e;
  if (step > 0) {
    b = s.start ? clamp(*s.start, 0, n) : 0;
    e = s.stop ? clamp(*s.stop, 0, n) : n;
  } else {
    b = s.start ? clamp(*s.start, -1, Wide{n} - 1) : Wide{n} - 1;
    e = s.stop ? clamp(*s.stop, -1, Wide{n} - 1) : -1;
  }
  const Wide count = step > 0 ? (e > b ? (e - b + step - 1) / step : 0)
                              : (b > e ? (b - e - step - 1) / (-step) : 0);
  return Progression{b, step, count};
}

bool nonneg_or_absent(const std::optional<std::int64_t>& v) { return !v || *v >= 0; }

}  // namespace

std::optional<ConstSlice> merge_slices(const ConstSlice& first, const ConstSlice& second,
                                       std::optional<std::int64_t> n) {
  if ((first.step && *first.step == 0) || (second.step && *second.step == 0)) return std::nullopt;
  if (n) {
    const auto p1 = progression(first, *n);
    if (!p1) return std::nullopt;
    const auto len1 = narrow(p1->count);
    const auto p2 = len1 ? progression(second, *len1) : std::nullopt;
    if (!p2) return std::nullopt;
    if (p2->count == 0) return ConstSlice{0, 0, 1};
    const Wide start = p1->start + p2->start * p1->step;
    const Wide step = p1->step * p2->step;
    const Wide stop = start + p2->count * step;
    const auto s = narrow(start), c = narrow(step), e = narrow(stop);
    if (!s || !c || !e) return std::nullopt;
    // A negative stop would count from the end; past index 0 going down is
    // what an absent stop means.
    if (*e < 0) return ConstSlice{*s, std::nullopt, *c};
    return ConstSlice{*s, *e, *c};
  }
  if (first.step.value_or(1) < 0 || second.step.value_or(1) < 0) return std::nullopt;
  if (!nonneg_or_absent(first.start) || !nonneg_or_absent(first.stop) ||
      !nonneg_or_absent(second.start) || !nonneg_or_absent(second.stop))
    return std::nullopt;
  const Wide a1 = first.start.value_or(0), c1 = first.step.value_or(1);
  const Wide a2 = second.start.value_or(0), c2 = second.step.value_or(1);
  const auto start = narrow(a1 + a2 * c1), step = narrow(c1 * c2);
  if (!start || !step) return std::nullopt;
  std::optional<std::int64_t> stop = first.stop;
  if (second.stop) {
    const auto through = narrow(a1 + Wide{*second.stop} * c1);
    if (!through) return std::nullopt;
    stop = stop ? std::min(*stop, *through) : *through;
  }
  ConstSlice out{*start, stop, *step};
  // Drop what Python takes by default, so that useless slices are seen as such.
  if (out.start == 0) out.start.reset();
  if (out.step == 1) out.step.reset();
  return out;
}

std::optional<std::int64_t> merge_slice_index(const ConstSlice& first, std::int64_t i,
                                              std::optional<std::int64_t> n) {
  if (first.step && *first.step == 0) return std::nullopt;
  if (n) {
    const auto p = progression(first, *n);
    if (!p) return std::nullopt;
    const Wide k = i < 0 ? Wide{i} + p->count : Wide{i};
    if (k < 0 || k >= p->count) return std::nullopt;
    return narrow(p->start + k * p->step);
  }
  if (first.stop || first.step.value_or(1) < 0 || !nonneg_or_absent(first.start) || i < 0)
    return std::nullopt;
  return narrow(Wide{first.start.value_or(0)} + Wide{i} * first.step.value_or(1));
}

namespace {

/// One entry of a subtensor's index with its inputs: an integer, a slice (a
/// null Var for an absent bound), or the full slice of an axis past the
/// entries.
struct Entry {
  bool is_int = false;
  Var index;
  Var start, stop, step;

  bool full() const { return !is_int && !start && !stop && !step; }
  /// The constant slice, or nullopt when a present bound is not a constant.
  std::optional<ConstSlice> constant() const {
    ConstSlice s;
    const Var* vars[3] = {&start, &stop, &step};
    std::optional<std::int64_t>* out[3] = {&s.start, &s.stop, &s.step};
    for (int b = 0; b < 3; ++b) {
      if (!*vars[b]) continue;
      *out[b] = ops_detail::constant_int(*vars[b]);
      if (!*out[b]) return std::nullopt;
    }
    return s;
  }
};

/// The entries of a subtensor node, one per indexed axis.
std::vector<Entry> entries_of(const Apply& node, const Subtensor& op) {
  std::vector<Entry> out;
  std::size_t k = 1;
  for (const IndexEntry& e : op.index().entries()) {
    Entry en;
    if (!e.is_slice) {
      en.is_int = true;
      en.index = node.input(k++);
    } else {
      if (e.has_start) en.start = node.input(k++);
      if (e.has_stop) en.stop = node.input(k++);
      if (e.has_step) en.step = node.input(k++);
    }
    out.push_back(std::move(en));
  }
  return out;
}

/// `x[entries]`, trailing full slices dropped; x itself when nothing is left.
Var build_subtensor(const Var& x, std::vector<Entry> entries) {
  while (!entries.empty() && entries.back().full()) entries.pop_back();
  if (entries.empty()) return x;
  std::vector<std::int64_t> codes;
  std::vector<Var> inputs{x};
  for (const Entry& e : entries) {
    if (e.is_int) {
      codes.push_back(kIndexFromInput);
      inputs.push_back(e.index);
      continue;
    }
    IndexEntry ie{true, e.start != nullptr, e.stop != nullptr, e.step != nullptr};
    codes.push_back(ie.code());
    for (const Var* b : {&e.start, &e.stop, &e.step})
      if (*b) inputs.push_back(*b);
  }
  return std::make_shared<Subtensor>(std::move(codes))->make_node(inputs)->output(0);
}

Var bound(const std::optional<std::int64_t>& v) {
  return v ? ops_detail::int64_constant(*v) : Var{};
}

std::optional<std::int64_t> static_extent(const TensorType& t, std::size_t axis) {
  const std::int64_t d = t.shape()[axis];
  return d == kUnknownDim ? std::nullopt : std::optional<std::int64_t>(d);
}

}  // namespace

SubtensorMerge::SubtensorMerge()
    : NodeRewriter("subtensor_merge", Tracks{"subtensor"}, /*depth=*/1) {}

RewriteResult SubtensorMerge::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* outer = ops_detail::op_as<Subtensor>(node.op());
  const Apply* inner_node = node.input(0)->owner();
  const auto* inner = inner_node ? ops_detail::op_as<Subtensor>(inner_node->op()) : nullptr;
  if (!outer || !inner) return RewriteResult::fail("not a subtensor of a subtensor");
  const Var& x = inner_node->input(0);
  const TensorType& xt = *x->tensor_type();
  const std::vector<Entry> first = entries_of(*inner_node, *inner);
  const std::vector<Entry> second = entries_of(node, *outer);
  std::vector<Entry> merged;
  std::size_t r = 0;  // the axis of the inner result the next outer entry indexes
  for (std::size_t a = 0; a < xt.ndim(); ++a) {
    const Entry f = a < first.size() ? first[a] : Entry{};
    if (f.is_int) {
      merged.push_back(f);
      continue;
    }
    const Entry s = r < second.size() ? second[r] : Entry{};
    ++r;
    if (f.full()) {
      merged.push_back(s);
      continue;
    }
    if (s.full()) {
      merged.push_back(f);
      continue;
    }
    const auto fc = f.constant();
    if (!fc) return RewriteResult::fail("a slice bound is not a constant");
    const std::optional<std::int64_t> n = static_extent(xt, a);
    if (s.is_int) {
      const auto i = ops_detail::constant_int(s.index);
      const auto j = i ? merge_slice_index(*fc, *i, n) : std::nullopt;
      if (!j) return RewriteResult::fail("cannot prove an index into a slice");
      Entry e;
      e.is_int = true;
      e.index = ops_detail::int64_constant(*j);
      merged.push_back(std::move(e));
      continue;
    }
    const auto sc = s.constant();
    const auto m = sc ? merge_slices(*fc, *sc, n) : std::nullopt;
    if (!m) return RewriteResult::fail("cannot prove the merged slice");
    Entry e;
    e.start = bound(m->start);
    e.stop = bound(m->stop);
    e.step = bound(m->step);
    merged.push_back(std::move(e));
  }
  return RewriteResult::replace_output(build_subtensor(x, std::move(merged)));
}

SubtensorUseless::SubtensorUseless()
    : NodeRewriter("subtensor_useless", Tracks{"subtensor"}, /*depth=*/1) {}

RewriteResult SubtensorUseless::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = ops_detail::op_as<Subtensor>(node.op());
  if (!op) return RewriteResult::fail("not a subtensor");
  const Var& x = node.input(0);
  const TensorType& xt = *x->tensor_type();
  const std::vector<Entry> entries = entries_of(node, *op);
  for (std::size_t a = 0; a < entries.size(); ++a) {
    const Entry& e = entries[a];
    if (e.is_int) return RewriteResult::fail("an integer index drops an axis");
    if (e.start && ops_detail::constant_int(e.start) != 0)
      return RewriteResult::fail("a slice does not start at 0");
    if (e.step && ops_detail::constant_int(e.step) != 1)
      return RewriteResult::fail("a slice's step is not 1");
    if (!e.stop) continue;
    const auto stop = ops_detail::constant_int(e.stop);
    const auto n = static_extent(xt, a);
    if (stop && n && *stop >= *n) continue;
    const Apply* s = e.stop->owner();
    const auto* si = s ? ops_detail::op_as<ShapeI>(s->op()) : nullptr;
    if (si && s->input(0) == x && si->axis() == static_cast<std::int64_t>(a)) continue;
    return RewriteResult::fail("a slice may stop before the end");
  }
  return RewriteResult::replace_output(x);
}

namespace {

/// `dimshuffle(x, order)[idx] -> dimshuffle(x[idx'], order')`: each entry
/// moves to the input axis its result axis comes from; an integer index on
/// a new axis (extent 1) must be a constant 0 or -1 and drops that axis; a
/// slice on a new axis refuses (it may keep or empty the axis).
RewriteResult lift_through_dimshuffle(const Apply& node, const Subtensor& op, const Apply& owner,
                                      const DimShuffle& ds) {
  const std::vector<Entry> entries = entries_of(node, op);
  const std::vector<std::int64_t>& order = ds.order();
  const Var& x = owner.input(0);
  std::vector<Entry> moved(x->tensor_type()->ndim());
  std::vector<bool> dropped_result_axis(order.size(), false);
  for (std::size_t r = 0; r < entries.size(); ++r) {
    const Entry& e = entries[r];
    if (e.full()) continue;
    if (order[r] >= 0) {
      moved[static_cast<std::size_t>(order[r])] = e;
      dropped_result_axis[r] = e.is_int;
      continue;
    }
    const auto i = e.is_int ? ops_detail::constant_int(e.index) : std::nullopt;
    if (!i || (*i != 0 && *i != -1))
      return RewriteResult::fail("an index on a new axis is not a constant 0 or -1");
    dropped_result_axis[r] = true;
  }
  // The subtensor of x drops the axes with integer entries; the others are
  // renumbered in x's order.
  std::vector<std::int64_t> position(moved.size(), -1);
  std::int64_t next = 0;
  for (std::size_t a = 0; a < moved.size(); ++a)
    if (!moved[a].is_int) position[a] = next++;
  std::vector<std::int64_t> new_order;
  for (std::size_t r = 0; r < order.size(); ++r) {
    if (dropped_result_axis[r]) continue;
    new_order.push_back(order[r] < 0 ? kNewAxis : position[static_cast<std::size_t>(order[r])]);
  }
  // Input axes that dimshuffle drops (static extent 1) stay dropped.
  const Var sub = build_subtensor(x, std::move(moved));
  bool identity = new_order.size() == sub->tensor_type()->ndim();
  for (std::size_t r = 0; r < new_order.size() && identity; ++r)
    identity = new_order[r] == static_cast<std::int64_t>(r);
  if (identity) return RewriteResult::replace_output(sub);
  const auto shuffle = std::make_shared<DimShuffle>(std::move(new_order));
  return RewriteResult::replace_output(shuffle->make_node(std::span(&sub, 1))->output(0));
}

}  // namespace

SubtensorLift::SubtensorLift()
    : NodeRewriter("subtensor_lift", Tracks{"subtensor"}, /*depth=*/1) {
  set_reads_uses();
}

RewriteResult SubtensorLift::transform(FunctionGraph& fgraph, Apply& node,
                                       const RewriteContext&) const {
  const auto* op = ops_detail::op_as<Subtensor>(node.op());
  const Var& y = node.input(0);
  const Apply* owner = y->owner();
  if (!op || !owner) return RewriteResult::fail("not a subtensor of a computed value");
  if (const auto* ds = ops_detail::op_as<DimShuffle>(owner->op()))
    return lift_through_dimshuffle(node, *op, *owner, *ds);
  const auto* e = ops_detail::op_as<Elemwise>(owner->op());
  if (!e || e->inplace_input()) return RewriteResult::fail("not a subtensor of an elemwise");
  if (fgraph.num_clients(*y) != 1) return RewriteResult::fail("the elemwise result has other uses");
  const TensorType& yt = *y->tensor_type();
  const std::size_t indexed = op->index().entries().size();
  const std::vector<Var> index_inputs(node.inputs().begin() + 1, node.inputs().end());
  std::vector<Var> lifted;
  for (const Var& in : owner->inputs()) {
    const TensorType& it = *in->tensor_type();
    if (it.ndim() == 0) {
      lifted.push_back(in);
      continue;
    }
    if (it.ndim() != yt.ndim()) return RewriteResult::fail("an input has a lower rank");
    for (std::size_t a = 0; a < indexed; ++a)
      if (it.shape()[a] == 1 && yt.shape()[a] != 1)
        return RewriteResult::fail("an input broadcasts on an indexed axis");
    std::vector<Var> inputs{in};
    inputs.insert(inputs.end(), index_inputs.begin(), index_inputs.end());
    lifted.push_back(op->make_node(inputs)->output(0));
  }
  return RewriteResult::replace_output(e->make_node(lifted)->output(0));
}

SubtensorOfPieces::SubtensorOfPieces()
    : NodeRewriter("subtensor_of_pieces", Tracks{"subtensor"}, /*depth=*/1) {}

RewriteResult SubtensorOfPieces::transform(FunctionGraph&, Apply& node,
                                           const RewriteContext&) const {
  const auto* op = ops_detail::op_as<Subtensor>(node.op());
  const Var& y = node.input(0);
  const Apply* owner = y->owner();
  if (!op || !owner) return RewriteResult::fail("not a subtensor of a computed value");
  const TensorType& yt = *y->tensor_type();
  const std::vector<Entry> entries = entries_of(node, *op);
  if (ops_detail::op_as<Alloc>(owner->op())) {
    const Var& v = owner->input(0);
    const std::size_t lead = yt.ndim() - v->tensor_type()->ndim();
    if (entries.size() > lead) return RewriteResult::fail("an index reaches an axis of the value");
    for (std::size_t a = 0; a < entries.size(); ++a) {
      if (!entries[a].is_int) return RewriteResult::fail("a slice on an extent of the alloc");
      const auto i = ops_detail::constant_int(entries[a].index);
      const auto d = ops_detail::constant_int(owner->input(a + 1));
      if (!i || !d || *i < -*d || *i >= *d)
        return RewriteResult::fail("an index is not a constant in range of a constant extent");
    }
    // No leading axis left: alloc would only broadcast v's axes of extent 1
    // and check the others against its extents; without axes of extent 1 the
    // result is v (the check dropped, as PyTensor's local_useless_alloc does).
    const StaticShape& vs = v->tensor_type()->shape();
    if (entries.size() == lead && std::find(vs.begin(), vs.end(), 1) == vs.end())
      return RewriteResult::replace_output(v);
    std::vector<Var> inputs{v};
    inputs.insert(inputs.end(), owner->inputs().begin() + 1 + static_cast<long>(entries.size()),
                  owner->inputs().end());
    return RewriteResult::replace_output(
        std::make_shared<Alloc>()->make_node(inputs)->output(0));
  }
  const auto* join = ops_detail::op_as<Join>(owner->op());
  if (!join || (join->axis() != 0 && join->axis() != -static_cast<std::int64_t>(yt.ndim())))
    return RewriteResult::fail("not an alloc or a join on axis 0");
  const auto i = !entries.empty() && entries[0].is_int ? ops_detail::constant_int(entries[0].index)
                                                       : std::nullopt;
  if (!i) return RewriteResult::fail("the first index is not a constant integer");
  std::int64_t k = *i;
  if (k < 0) {
    const auto total = static_extent(yt, 0);
    if (!total || k < -*total) return RewriteResult::fail("a negative index into an unknown extent");
    k += *total;
  }
  for (const Var& piece : owner->inputs()) {
    const auto n = static_extent(*piece->tensor_type(), 0);
    if (!n) return RewriteResult::fail("a piece before the index has an unknown extent");
    if (k < *n) {
      std::vector<Var> inputs{piece, ops_detail::int64_constant(k)};
      inputs.insert(inputs.end(), node.inputs().begin() + 2, node.inputs().end());
      Var out = op->make_node(inputs)->output(0);
      if (out->tensor_type()->dtype() != yt.dtype()) out = api::cast(out, yt.dtype());
      return RewriteResult::replace_output(out);
    }
    k -= *n;
  }
  return RewriteResult::fail("the index is past the pieces");
}

void register_subtensor_rewrites(SequenceDB& db) {
  auto& canonicalize = db.sub<EquilibriumDB>("canonicalize");
  const std::vector<std::string> tags{"fast_run", "fast_compile", "subtensor"};
  canonicalize.add(std::make_shared<SubtensorUseless>(), tags);
  canonicalize.add(std::make_shared<SubtensorMerge>(), tags);
  canonicalize.add(std::make_shared<SubtensorLift>(), tags);
  canonicalize.add(std::make_shared<SubtensorOfPieces>(), tags);
}

}  // namespace rw
