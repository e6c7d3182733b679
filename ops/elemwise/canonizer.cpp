// AlgebraicCanonizer: sums and products flattened, like terms and constants
// collected, rebuilt in one canonical form; and its registration.
#include "ops/elemwise/canonizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include <boost/container/small_vector.hpp>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/mode.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/simplify.hpp"
#include "runtime/hash_mix.hpp"

namespace rw {

namespace {

/// How many levels of inner adds/subs (muls/divs) are read into one chain: a
/// bound on the reader's recursion, not a cost limit. Only a chain's root
/// reads it (its links are left to the root), so the whole tree is rewritten
/// at once: with 4 levels an add tree of 128 terms (the dag reference graphs)
/// was rebuilt nine times over, and dag-1000 took 13% more instructions.
constexpr int kMaxNesting = 64;
/// How many levels below a term its sort key reads (each level costs a hash
/// of every input: the key is computed for every term of every rewrite).
constexpr int kKeyDepth = 1;
/// Below the rules' benefit (their priority, 0 unless given): a one-line rule
/// on the same node is tried first.
constexpr int kBenefit = -1;

/// The value of a one-element constant.
std::optional<double> one_element(const Var& v) {
  const Constant* c = v->as_constant();
  if (!c) return std::nullopt;
  return c->scalar_value();
}

/// The kinds of the Ops a chain is made of, compared first: most operands
/// are something else, and a kind is a number the node holds.
struct ChainKinds {
  std::uint32_t add, sub, neg, mul, true_div;
  bool contains(std::uint32_t k) const {
    return k == add || k == sub || k == neg || k == mul || k == true_div;
  }
};
const ChainKinds& chain_kinds() {
  static const ChainKinds kinds{OpKind::of("add").index(), OpKind::of("sub").index(),
                                OpKind::of("neg").index(), OpKind::of("mul").index(),
                                OpKind::of("true_div").index()};
  return kinds;
}

/// The scalar operation of `v`'s owner when it is a plain (not in-place)
/// Elemwise add, sub, neg, mul or true_div: the operations chains read.
std::optional<ScalarOp> scalar_op_of(const Variable& v) {
  const Apply* owner = v.owner();
  if (!owner || !chain_kinds().contains(owner->kind_index())) return std::nullopt;
  const auto* e = ops_detail::op_as<Elemwise>(owner->op());
  if (!e || e->inplace_input()) return std::nullopt;
  return e->scalar_op();
}

/// One term of a chain: `coef * base` in a sum; `base ** coef`, coef ±1, in a
/// product.
/// Variables are held by plain pointers: the graph keeps them alive while a
/// chain is read, and a long sum is read again at every attempt, where
/// counted handles would cost two atomic operations per term.
struct Term {
  Variable* base;
  double coef;
  std::uint64_t key = 0;
  /// Sums: a node of the graph computing `scaled * base` (scaled > 0), which
  /// the rebuilt sum reuses when it needs that product, instead of a copy.
  Variable* scaled_node = nullptr;
  double scaled = 0;
};
using Terms = boost::container::small_vector<Term, 8>;

/// What reading a chain found.
struct Chain {
  Terms terms;
  /// The constants folded: their sum (sums) or product (products).
  double constant;
  int constants = 0;
  /// Non-constant leaves read, before like terms were combined.
  int leaves = 0;
  /// Nodes that go away with the chain, negations not counted: the root, the
  /// inner nodes read, and (sums) the single-use `k * base` products.
  int absorbed = 1;
  /// Factors cancelled between numerator and denominator (mul_cancel).
  int cancelled = 0;
  /// A division by a zero constant: left alone.
  bool bad = false;
  /// Factors cancelled (products): the shapes they broadcast to may have to
  /// be kept.
  std::vector<Var> dropped;
};

/// Terms a chain compares pairwise; more are grouped by sorting.
constexpr std::size_t kScanTerms = 8;

/// A key of `v` from its structure only (no addresses): the same graph gives
/// the same keys on every run.
std::uint64_t stable_key(const FunctionGraph& fgraph, const Variable& v, int depth) {
  if (const Constant* c = v.as_constant()) return hash_mix(1, c->signature_hash());
  const Apply* owner = v.owner();
  if (!owner) {
    const std::span<const Var> inputs = fgraph.inputs();
    std::uint64_t pos = inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].get() == &v) pos = i;
    return hash_mix(hash_mix(2, pos), std::hash<std::string>()(v.name()));
  }
  std::uint64_t h =
      hash_mix(hash_mix(3, std::hash<std::string_view>()(owner->op().name())), v.index());
  if (depth > 0)
    for (const Var& in : owner->inputs()) h = hash_mix(h, stable_key(fgraph, *in, depth - 1));
  return h;
}

/// Adds `coef * base` (sums) to the chain's terms; `node`, when given,
/// computes `k * base`. Like terms are combined afterwards (combine_like_terms).
void add_sum_term(Chain& c, const Var& base, double coef, const Var& node = {}, double k = 0) {
  ++c.leaves;
  c.terms.push_back({base.get(), coef});
  if (node && k > 0) {
    c.terms.back().scaled_node = node.get();
    c.terms.back().scaled = k;
  }
}

/// The index of the first of a chain's terms with each base, by open
/// addressing: a long sum is read again at every attempt, and this is linear
/// where sorting its terms was not (and allocates nothing up to 32 terms).
class FirstIndex {
 public:
  explicit FirstIndex(std::size_t n) {
    std::size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  /// The index stored for `key`, after storing `index` there if it was new.
  std::uint32_t find_or_add(const void* key, std::uint32_t index) {
    std::size_t h = (reinterpret_cast<std::uintptr_t>(key) >> 4) * 0x9e3779b97f4a7c15ULL;
    for (std::size_t at = (h >> 20) & mask_;; at = (at + 1) & mask_) {
      Slot& s = slots_[at];
      if (!s.key) {
        s = {key, index};
        return index;
      }
      if (s.key == key) return s.index;
    }
  }

 private:
  struct Slot {
    const void* key = nullptr;
    std::uint32_t index = 0;
  };
  boost::container::small_vector<Slot, 64> slots_;
  std::size_t mask_ = 0;
};

/// Adds up the coefficients of equal bases into the first of them, keeping
/// the order read; identity only groups, it orders nothing.
void combine_like_terms(Terms& terms) {
  auto absorb = [](Term& into, Term& t) {
    into.coef += t.coef;
    if (!into.scaled_node && t.scaled_node) {
      into.scaled_node = t.scaled_node;
      into.scaled = t.scaled;
    }
    t.base = nullptr;
  };
  bool any = false;
  if (terms.size() <= kScanTerms) {
    for (std::size_t i = 0; i < terms.size(); ++i)
      for (std::size_t j = i + 1; terms[i].base && j < terms.size(); ++j)
        if (terms[j].base == terms[i].base) {
          absorb(terms[i], terms[j]);
          any = true;
        }
  } else {
    FirstIndex first(terms.size());
    for (std::uint32_t i = 0; i < terms.size(); ++i)
      if (const std::uint32_t f = first.find_or_add(terms[i].base, i); f != i) {
        absorb(terms[f], terms[i]);
        any = true;
      }
  }
  if (any)
    terms.erase(std::remove_if(terms.begin(), terms.end(), [](const Term& t) { return !t.base; }),
                terms.end());
}

/// Whether two of `vars` are the same variable.
bool has_repeats(std::span<const Variable* const> vars) {
  if (vars.size() <= kScanTerms) {
    for (std::size_t i = 0; i < vars.size(); ++i)
      for (std::size_t j = i + 1; j < vars.size(); ++j)
        if (vars[i] == vars[j]) return true;
    return false;
  }
  FirstIndex first(vars.size());
  for (std::uint32_t i = 0; i < vars.size(); ++i)
    if (first.find_or_add(vars[i], i) != i) return true;
  return false;
}

/// Whether an inner node computing `v` can be read into a chain of `dtype`:
/// only the chain uses it, and it has the chain's dtype.
bool readable(const FunctionGraph& fgraph, const Var& v, DType dtype) {
  return v->tensor_type()->dtype() == dtype && fgraph.num_clients(*v) == 1;
}

/// True for a `+ 0` / `* 1` constant the chain can drop.
bool is_identity(double value, bool product) { return value == (product ? 1.0 : 0.0); }

/// Whether the sum `node` (a `sub`) is already what build_sum writes,
/// `a + b - (c + d)`, with nothing to combine: its sides, read through the
/// one level of adds build_sum makes, hold no inner sum, at most one
/// constant and no `+ 0`, no base twice, and no single-use `±1 * x`. That
/// form is met again at each change below it; without this answer it is
/// read in full each time to learn the same.
bool settled_difference(const FunctionGraph& fgraph, const Apply& node, DType dtype) {
  boost::container::small_vector<const Variable*, 16> bases;
  int constants = 0;
  const auto leaf = [&](const Var& in) {
    if (auto k = one_element(in)) {
      ++constants;
      return !is_identity(*k, false);
    }
    const Variable* base = in.get();
    if (const auto iop = scalar_op_of(*in)) {
      if ((*iop == ScalarOp::Add || *iop == ScalarOp::Sub || *iop == ScalarOp::Neg) &&
          readable(fgraph, in, dtype))
        return false;
      const Apply& owner = *in->owner();
      if (*iop == ScalarOp::Mul && owner.num_inputs() == 2)
        for (std::size_t j = 0; j < 2; ++j)
          if (auto k = one_element(owner.input(j)); k && !owner.input(1 - j)->is_constant()) {
            if (*k == 0 || std::abs(*k) == 1) return false;
            base = owner.input(1 - j).get();
          }
    }
    bases.push_back(base);
    return true;
  };
  for (const Var& side : node.inputs()) {
    if (scalar_op_of(*side) == ScalarOp::Add && readable(fgraph, side, dtype)) {
      for (const Var& in : side->owner()->inputs())
        if (!leaf(in)) return false;
    } else if (!leaf(side)) {
      return false;
    }
  }
  return constants <= 1 && !has_repeats({bases.data(), bases.size()});
}

void collect_sum(const FunctionGraph& fgraph, const Var& v, double scale, int depth, DType dtype,
                 Chain& c) {
  if (auto k = one_element(v)) {
    c.constant += scale * *k;
    ++c.constants;
    return;
  }
  const auto op = scalar_op_of(*v);
  // The op first: asking the graph for a variable's uses is the dearer test.
  if (op && depth > 0 && (*op == ScalarOp::Add || *op == ScalarOp::Sub || *op == ScalarOp::Neg) &&
      readable(fgraph, v, dtype)) {
    const Apply& node = *v->owner();
    switch (*op) {
      case ScalarOp::Add:
        ++c.absorbed;
        for (const Var& in : node.inputs()) collect_sum(fgraph, in, scale, depth - 1, dtype, c);
        return;
      case ScalarOp::Sub:
        ++c.absorbed;
        collect_sum(fgraph, node.input(0), scale, depth - 1, dtype, c);
        collect_sum(fgraph, node.input(1), -scale, depth - 1, dtype, c);
        return;
      case ScalarOp::Neg:
        collect_sum(fgraph, node.input(0), -scale, depth - 1, dtype, c);
        return;
      default:
        break;
    }
  }
  // `k * base` (either order), k a one-element constant: a scaled term. Read
  // also when the product is used elsewhere (it then stays, but its base can
  // still combine with a like term).
  if (op == ScalarOp::Mul && v->owner()->num_inputs() == 2 &&
      v->tensor_type()->dtype() == dtype) {
    const Apply& node = *v->owner();
    for (std::size_t i = 0; i < 2; ++i)
      if (auto k = one_element(node.input(i)); k && !node.input(1 - i)->is_constant()) {
        if (fgraph.num_clients(*v) == 1) ++c.absorbed;
        add_sum_term(c, node.input(1 - i), scale * *k, v, *k);
        return;
      }
  }
  add_sum_term(c, v, scale);
}

void collect_product(const FunctionGraph& fgraph, const Var& v, double power, int depth,
                     DType dtype, bool cancel, Chain& c) {
  if (auto k = one_element(v)) {
    if (power < 0 && *k == 0) c.bad = true;
    c.constant *= power > 0 ? *k : 1.0 / *k;
    ++c.constants;
    return;
  }
  const auto op = scalar_op_of(*v);
  if (op && depth > 0 &&
      (*op == ScalarOp::Mul || *op == ScalarOp::TrueDiv || *op == ScalarOp::Neg) &&
      readable(fgraph, v, dtype)) {
    const Apply& node = *v->owner();
    switch (*op) {
      case ScalarOp::Mul:
        ++c.absorbed;
        for (const Var& in : node.inputs())
          collect_product(fgraph, in, power, depth - 1, dtype, cancel, c);
        return;
      case ScalarOp::TrueDiv:
        ++c.absorbed;
        collect_product(fgraph, node.input(0), power, depth - 1, dtype, cancel, c);
        collect_product(fgraph, node.input(1), -power, depth - 1, dtype, cancel, c);
        return;
      case ScalarOp::Neg:
        c.constant = -c.constant;
        collect_product(fgraph, node.input(0), power, depth - 1, dtype, cancel, c);
        return;
      default:
        break;
    }
  }
  ++c.leaves;
  if (cancel)
    for (auto it = c.terms.begin(); it != c.terms.end(); ++it)
      if (it->base == v.get() && it->coef == -power) {
        c.terms.erase(it);
        ++c.cancelled;
        c.dropped.push_back(v);
        return;
      }
  c.terms.push_back({v.get(), power});
}

/// The broadcast pattern and extents of a variable's static type.
const StaticShape& static_shape(const Var& v) { return v->tensor_type()->shape(); }

Var apply(ScalarOp op, std::vector<Var> inputs) {
  return elemwise_op(op)->make_node(inputs)->output(0);
}

/// `factors[0] op factors[1] op …` as one n-ary node (add, mul), or the only
/// factor.
Var fold(ScalarOp op, std::vector<Var> factors) {
  if (factors.size() == 1) return std::move(factors[0]);
  return apply(op, std::move(factors));
}


/// Sorts the terms by their stable keys, ties in the order read.
void sort_terms(const FunctionGraph& fgraph, Terms& terms) {
  for (Term& t : terms) t.key = stable_key(fgraph, *t.base, kKeyDepth);
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.key < b.key; });
}

/// How many nodes, negations not counted, build_sum makes of `c`.
int sum_ops(const Chain& c) {
  int ops = 0, pos = 0, neg = 0;
  if (!is_identity(c.constant, false)) ++(c.constant > 0 ? pos : neg);
  for (const Term& t : c.terms) {
    if (t.coef == 0) continue;
    ops += std::abs(t.coef) != 1;
    ++(t.coef > 0 ? pos : neg);
  }
  return ops + (pos >= 2) + (neg >= 2) + (pos > 0 && neg > 0);
}

/// How many nodes, negations not counted, build_product makes of `c`; the
/// negation a negative constant becomes counts (`x * -1` stays for
/// specialize's `mul_neg_one_right`).
int product_ops(const Chain& c) {
  int num = std::abs(c.constant) != 1, den = 0;
  for (const Term& t : c.terms) ++(t.coef > 0 ? num : den);
  return (num >= 2) + (den >= 2) + (den > 0) + (c.constant < 0);
}

/// How many constants build_sum writes: a `+ 0` goes unless nothing else is left.
int sum_constants(const Chain& c) {
  const bool terms = std::any_of(c.terms.begin(), c.terms.end(),
                                 [](const Term& t) { return t.coef != 0; });
  return !is_identity(c.constant, false) || !terms;
}

/// How many constants build_product writes: a `* 1` goes unless it is the
/// numerator of a reciprocal (`1 / x`) or all that is left; -1 stays as a
/// negation.
int product_constants(const Chain& c) {
  const bool num = std::any_of(c.terms.begin(), c.terms.end(),
                               [](const Term& t) { return t.coef > 0; });
  return std::abs(c.constant) != 1 || c.constant < 0 || !num;
}

/// The sum `c.constant + Σ coef * base`: `c + t1 + k * t2 - (u1 + u2)`.
Var build_sum(const Chain& c, DType dtype) {
  std::vector<Var> pos, neg;
  if (!is_identity(c.constant, false))
    (c.constant > 0 ? pos : neg).push_back(ops_detail::scalar_constant(std::abs(c.constant), dtype));
  for (const Term& t : c.terms) {
    if (t.coef == 0) continue;
    Var term = t.base->ref();
    if (std::abs(t.coef) != 1)
      term = t.scaled_node && t.scaled == std::abs(t.coef)
                 ? t.scaled_node->ref()
                 : apply(ScalarOp::Mul,
                         {ops_detail::scalar_constant(std::abs(t.coef), dtype), t.base->ref()});
    (t.coef > 0 ? pos : neg).push_back(std::move(term));
  }
  if (pos.empty() && neg.empty()) return ops_detail::scalar_constant(0, dtype);
  if (neg.empty()) return fold(ScalarOp::Add, std::move(pos));
  Var n = fold(ScalarOp::Add, std::move(neg));
  if (pos.empty()) return apply(ScalarOp::Neg, {n});
  return apply(ScalarOp::Sub, {fold(ScalarOp::Add, std::move(pos)), n});
}

/// The product `c.constant * Π base ** ±1`: `k * n1 * n2 / (d1 * d2)`, or its
/// negation.
Var build_product(const Chain& c, DType dtype) {
  std::vector<Var> num, den;
  const double k = std::abs(c.constant);
  if (k != 1) num.push_back(ops_detail::scalar_constant(k, dtype));
  for (const Term& t : c.terms) (t.coef > 0 ? num : den).push_back(t.base->ref());
  Var r;
  if (den.empty()) {
    r = num.empty() ? ops_detail::scalar_constant(1, dtype) : fold(ScalarOp::Mul, std::move(num));
  } else {
    Var n = num.empty() ? ops_detail::scalar_constant(1, dtype) : fold(ScalarOp::Mul, std::move(num));
    r = apply(ScalarOp::TrueDiv, {n, fold(ScalarOp::Mul, std::move(den))});
  }
  if (c.constant < 0) r = apply(ScalarOp::Neg, {r});
  return r;
}

const char* name_of(CanonizerKind kind) {
  switch (kind) {
    case CanonizerKind::Add:
      return "add_canonizer";
    case CanonizerKind::Mul:
      return "mul_canonizer";
    case CanonizerKind::MulCancel:
      return "mul_cancel";
  }
  return "";
}

Tracks tracks_of(CanonizerKind kind) {
  return kind == CanonizerKind::Add ? Tracks{"add", "sub"} : Tracks{"mul", "true_div"};
}

}  // namespace

AlgebraicCanonizer::AlgebraicCanonizer(CanonizerKind kind)
    // Declared depth 1, though a chain is read kMaxNesting levels down: the
    // canonicalize group re-tries the users of every change up to its
    // deepest rewriter, and kMaxNesting + 1 here made the dag reference
    // graphs rewrite 3-6x slower (the drain re-queued five levels of users
    // per change). A change deeper in a chain than its root's inputs does
    // not re-try the root; the next change next to it, or the next
    // pipeline, does.
    : NodeRewriter(name_of(kind), tracks_of(kind), /*depth=*/1, kBenefit),
      kind_(kind) {
  // Inner nodes are read only when the chain is their sole use.
  set_reads_uses();
}

std::string AlgebraicCanonizer::describe() const {
  switch (kind_) {
    case CanonizerKind::Add:
      return "sums flattened, like terms and constants collected: (x + y) - y -> x";
    case CanonizerKind::Mul:
      return "products flattened, constants collected: x * 2 * 3 -> 6 * x";
    case CanonizerKind::MulCancel:
      return "products flattened, factors cancelled (assumes nonzero): (x * y) / y -> x";
  }
  return name();
}

RewriteResult AlgebraicCanonizer::transform(FunctionGraph& fgraph, Apply& node,
                                            const RewriteContext&) const {
  const auto* e = ops_detail::op_as<Elemwise>(node.op());
  if (!e || e->inplace_input()) return RewriteResult::fail("not a plain elementwise op");
  const ScalarOp op = e->scalar_op();
  const bool product = kind_ != CanonizerKind::Add;
  const Var out = node.output(0);
  const DType dtype = out->tensor_type()->dtype();
  if (!is_float(dtype) && !is_integer(dtype))
    return RewriteResult::fail("the result is neither float nor integer");
  if (op == ScalarOp::TrueDiv && !is_float(dtype))
    return RewriteResult::fail("an integer true_div");

  // The fast path, a scan of the inputs: no inner node of the chain's kind
  // used only here, at most one constant and not a `+ 0` or `* 1`, and no
  // base twice (sums, and products with mul_cancel): nothing to do.
  {
    int constants = 0;
    bool inner = false;
    boost::container::small_vector<const Variable*, 8> bases;
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      const Var& in = node.input(i);
      if (auto k = one_element(in)) {
        ++constants;
        const bool reciprocal = op == ScalarOp::TrueDiv && i == 0;
        if (is_identity(*k, product) && !reciprocal) inner = true;
        continue;
      }
      const Variable* base = in.get();
      if (const auto iop = scalar_op_of(*in)) {
        const Apply& owner = *in->owner();
        // A negation is read through: what it negates may be a chain. The
        // op first: asking the graph for uses is the dearer test.
        if ((*iop == ScalarOp::Neg ||
             (product ? *iop == ScalarOp::Mul || *iop == ScalarOp::TrueDiv
                      : *iop == ScalarOp::Add || *iop == ScalarOp::Sub)) &&
            readable(fgraph, in, dtype))
          inner = true;
        if (!product && *iop == ScalarOp::Mul && owner.num_inputs() == 2)
          for (std::size_t j = 0; j < 2; ++j)
            if (owner.input(j)->is_constant() && !owner.input(1 - j)->is_constant())
              base = owner.input(1 - j).get();
      }
      bases.push_back(base);
    }
    // Cancelling needs a division: a product of plain operands with nothing
    // inside to read (`x * x`) has none, and mul_canonizer folds its constants.
    if (kind_ == CanonizerKind::MulCancel && op == ScalarOp::Mul && !inner)
      return RewriteResult::fail("no division to cancel");
    if (!inner && constants <= 1 &&
        !((!product || kind_ == CanonizerKind::MulCancel) && has_repeats({bases.data(), bases.size()})))
      return RewriteResult::fail("nothing to flatten, combine or cancel");
    if (inner && op == ScalarOp::Sub && settled_difference(fgraph, node, dtype))
      return RewriteResult::fail("the chain is already in canonical form");
  }

  // A link inside a longer chain is left to the chain's root, which reads it
  // (and more) at once: rewriting it first would leave a piece (a fill, a
  // constant) the root cannot read.
  if (fgraph.num_clients(*out) == 1) {
    const Apply* user = fgraph.clients(*out)[0].node;
    const auto* ue = user ? ops_detail::op_as<Elemwise>(user->op()) : nullptr;
    if (ue && !ue->inplace_input() && user->output_var(0).tensor_type()->dtype() == dtype) {
      const ScalarOp u = ue->scalar_op();
      if (product ? u == ScalarOp::Mul || u == ScalarOp::TrueDiv
                  : u == ScalarOp::Add || u == ScalarOp::Sub)
        return RewriteResult::fail("a link of a longer chain: its root rewrites it");
    }
  }

  Chain c;
  c.constant = product ? 1.0 : 0.0;
  const Var root = node.output(0);
  const auto inputs = node.inputs();
  if (product) {
    const bool cancel = kind_ == CanonizerKind::MulCancel;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      collect_product(fgraph, inputs[i], op == ScalarOp::TrueDiv && i == 1 ? -1.0 : 1.0,
                      kMaxNesting, dtype, cancel, c);
    if (c.bad) return RewriteResult::fail("a division by a zero constant");
    if (c.constant == 0 || !std::isfinite(c.constant))
      return RewriteResult::fail("the constant factor is zero or not finite");
  } else {
    for (std::size_t i = 0; i < inputs.size(); ++i)
      collect_sum(fgraph, inputs[i], op == ScalarOp::Sub && i == 1 ? -1.0 : 1.0, kMaxNesting,
                  dtype, c);
    combine_like_terms(c.terms);
    if (!std::isfinite(c.constant)) return RewriteResult::fail("the constant is not finite");
  }
  if (is_integer(dtype) && c.constant != std::round(c.constant))
    return RewriteResult::fail("the folded constant is not an integer");

  const bool combined = c.leaves > static_cast<int>(c.terms.size()) ||
                        c.constants > (product ? product_constants(c) : sum_constants(c)) ||
                        c.cancelled > 0 ||
                        std::any_of(c.terms.begin(), c.terms.end(),
                                    [](const Term& t) { return t.coef == 0; });
  // The leaves that drop out of the result, in the order read: the shapes
  // they broadcast the result to may have to be kept.
  std::vector<Var> dropped = std::move(c.dropped);
  if (!product) {
    for (const Term& t : c.terms)
      if (t.coef == 0) dropped.push_back(t.base->ref());
  }
  if (!combined && (product ? product_ops(c) : sum_ops(c)) >= c.absorbed)
    return RewriteResult::fail("the chain is already in canonical form");

  sort_terms(fgraph, c.terms);
  Var result = product ? build_product(c, dtype) : build_sum(c, dtype);

  // Keep the broadcast of dropped operands the rest is not known to
  // reproduce: an extent that is unknown statically may be 1 at run time
  // and broadcast (`(x + y) - y` with x of one element is y's length).
  const StaticShape& want = static_shape(root);
  if (!dropped.empty()) {
    ShapeWithin within(*result);
    for (const Var& d : dropped)
      if (!within.contains(*d)) {
        result = fill_op()->make_node(std::vector<Var>{d, result})->output(0);
        within.add(*d);
      }
  }
  if (static_shape(result) != want)
    return RewriteResult::fail("the simplified chain would have another static shape");
  if (result->tensor_type()->dtype() != dtype) result = cast_op(dtype)->make_node(
      std::vector<Var>{result})->output(0);
  return RewriteResult::replace_output(std::move(result));
}

void register_canonizers(SequenceDB& db) {
  auto& group = db.sub<EquilibriumDB>("canonicalize");
  const std::vector<std::string> both{"fast_run", "fast_compile"};
  // A sum drops the terms whose coefficients add up to 0 (`(x + y) - y`),
  // which is NaN for an infinite term: it assumes finite values.
  group.add(std::make_shared<AlgebraicCanonizer>(CanonizerKind::Add),
            {"fast_run", "fast_compile", std::string(kAssumptionTag),
             std::string(kAssumptionTag) + "_finite"});
  group.add(std::make_shared<AlgebraicCanonizer>(CanonizerKind::Mul), both);
  group.add(std::make_shared<AlgebraicCanonizer>(CanonizerKind::MulCancel),
            {"fast_run", "fast_compile", std::string(kAssumptionTag),
             std::string(kAssumptionTag) + "_nonzero", std::string(kAssumptionTag) + "_finite"});
}

}  // namespace rw
