// Building terms, their hashes and ground flags, logic variable ids and names,
// structural equality, and iterative destruction.
#include "engine/unify/term.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "engine/graph/op.hpp"
#include "runtime/detail/pool_alloc.hpp"
#include "engine/unify/detail/small_stack.hpp"

namespace rw {

using detail::mix;

std::string_view term_kind_name(TermKind kind) {
  switch (kind) {
    case TermKind::Null: return "null term";
    case TermKind::Var: return "variable";
    case TermKind::Int: return "integer";
    case TermKind::Float: return "number";
    case TermKind::Bool: return "boolean";
    case TermKind::None: return "none";
    case TermKind::DType: return "dtype";
    case TermKind::String: return "string";
    case TermKind::Nil: return "empty list";
    case TermKind::TupleTag: return "tuple tag";
    case TermKind::Op: return "op";
    case TermKind::OpPattern: return "op pattern";
    case TermKind::Pair: return "pair";
    case TermKind::Compound: return "compound";
    case TermKind::Graph: return "graph variable";
  }
  return "?";
}

namespace detail {

namespace {

constexpr std::uint64_t kSeedInt = 0x1f3d5b79a2c4e6f8ULL;
constexpr std::uint64_t kSeedFloat = 0x2e4c6a8b1d3f5e7aULL;
constexpr std::uint64_t kSeedString = 0x3a5c7e9f1b2d4c6eULL;
constexpr std::uint64_t kSeedOp = 0x4b6d8f1a3c5e7a9cULL;
constexpr std::uint64_t kSeedPattern = 0x5c7e9a1b3d5f7c8eULL;
constexpr std::uint64_t kSeedPair = 0x6d8f1b3c5e7a9c2dULL;
constexpr std::uint64_t kSeedCompound = 0x7e9a2c4d6f8b1d3eULL;

template <class N> N* new_node(TermKind kind, std::size_t bytes = sizeof(N)) {
  void* mem = pool_alloc(bytes);
  N* n = new (mem) N();
  n->kind = kind;
  return n;
}

std::size_t compound_bytes(std::uint32_t arity) {
  return sizeof(CompoundNode) + std::size_t{arity} * sizeof(Term);
}

// The shape flags a parent inherits from a child.
std::uint8_t child_flags(const Term& t) {
  if (t.is_heap()) return t.node()->flags & TermNode::kShapeFlags;
  return t.is_graph() ? TermNode::kHasOpView : 0;
}

std::uint64_t combine(std::uint64_t h, std::uint64_t x) {
  return mix(h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

// Pending nodes of the destruction in progress on this thread: freeing a node
// releases its children, which are queued instead of freed recursively.
using Pending = SmallStack<TermNode*, 64>;
thread_local Pending* t_pending = nullptr;

void drop_child(Term& child, Pending& pending) noexcept {
  const std::uint64_t bits = child.release();
  const std::uint64_t tag = bits & kTagMask;
  if (tag == kTagHeap) {
    if (!bits) return;
    auto* n = reinterpret_cast<TermNode*>(bits);
    if (n->rc.fetch_sub(1, std::memory_order_acq_rel) == 1) pending.push_back(n);
  } else if (tag == kTagGraph) {
    release_graph(bits);
  }
}

void free_one(TermNode* n, Pending& pending) noexcept {
  switch (n->kind) {
    case TermKind::Int:
      static_cast<IntNode*>(n)->~IntNode();
      pool_free(n, sizeof(IntNode));
      break;
    case TermKind::Float:
      static_cast<FloatNode*>(n)->~FloatNode();
      pool_free(n, sizeof(FloatNode));
      break;
    case TermKind::String:
      static_cast<StringNode*>(n)->~StringNode();
      pool_free(n, sizeof(StringNode));
      break;
    case TermKind::Op:
      static_cast<OpNode*>(n)->~OpNode();
      pool_free(n, sizeof(OpNode));
      break;
    case TermKind::OpPattern: {
      auto* p = static_cast<OpPatternNode*>(n);
      for (PropTerm& prop : p->props) drop_child(prop.value, pending);
      p->~OpPatternNode();
      pool_free(n, sizeof(OpPatternNode));
      break;
    }
    case TermKind::Pair: {
      auto* p = static_cast<PairNode*>(n);
      drop_child(p->car, pending);
      drop_child(p->cdr, pending);
      p->~PairNode();
      pool_free(n, sizeof(PairNode));
      break;
    }
    case TermKind::Compound: {
      auto* c = static_cast<CompoundNode*>(n);
      const std::uint32_t arity = c->arity;
      drop_child(c->head, pending);
      Term* args = c->args();
      for (std::uint32_t i = 0; i < arity; ++i) {
        drop_child(args[i], pending);
        args[i].~Term();
      }
      c->~CompoundNode();
      pool_free(n, compound_bytes(arity));
      break;
    }
    default: break;  // immediates are never nodes
  }
}

}  // namespace

std::uint64_t compute_hash(const TermNode* root) noexcept {
  // Post-order over the children whose hashes are not known yet.
  auto hash_of = [](const Term& t) -> std::uint64_t {
    return t.is_heap() ? t.node()->hash.load(std::memory_order_relaxed) : mix(t.bits());
  };
  SmallStack<const TermNode*, 32> stack;
  stack.push_back(root);
  while (!stack.empty()) {
    const TermNode* n = stack.back();
    if (n->hash.load(std::memory_order_relaxed)) {
      stack.pop_back();
      continue;
    }
    const std::size_t before = stack.size();
    auto need = [&](const Term& t) {
      if (t.is_heap() && !t.node()->hash.load(std::memory_order_relaxed)) stack.push_back(t.node());
    };
    std::uint64_t h = 0;
    if (n->kind == TermKind::Pair) {
      const auto* p = static_cast<const PairNode*>(n);
      need(p->car);
      need(p->cdr);
      if (stack.size() == before) h = combine(combine(kSeedPair, hash_of(p->car)), hash_of(p->cdr));
    } else {
      const auto* c = static_cast<const CompoundNode*>(n);
      need(c->head);
      for (std::uint32_t i = 0; i < c->arity; ++i) need(c->args()[i]);
      if (stack.size() == before) {
        h = combine(kSeedCompound ^ c->arity, hash_of(c->head));
        for (std::uint32_t i = 0; i < c->arity; ++i) h = combine(h, hash_of(c->args()[i]));
      }
    }
    if (stack.size() == before) {
      n->hash.store(h | 1, std::memory_order_relaxed);  // never 0: 0 means "not computed"
      stack.pop_back();
    }
  }
  return root->hash.load(std::memory_order_relaxed);
}

void release_node(TermNode* node) noexcept {
  if (t_pending) {  // a destruction is in progress further up this thread's stack
    t_pending->push_back(node);
    return;
  }
  Pending pending;
  t_pending = &pending;
  free_one(node, pending);
  while (!pending.empty()) {
    TermNode* n = pending.back();
    pending.pop_back();
    free_one(n, pending);
  }
  t_pending = nullptr;
}

void retain_graph(std::uint64_t bits) noexcept {
  Var v(reinterpret_cast<Variable*>(bits & ~kTagMask));
  (void)v.release();
}

void release_graph(std::uint64_t bits) noexcept {
  Var::adopt(reinterpret_cast<Variable*>(bits & ~kTagMask));
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Atoms.

Term Term::integer(std::int64_t value) {
  if (value >= detail::kSmallIntMin && value <= detail::kSmallIntMax)
    return adopt_bits(static_cast<std::uint64_t>(value) << 3 | detail::kTagInt);
  auto* n = detail::new_node<detail::IntNode>(TermKind::Int);
  n->value = value;
  n->flags = detail::TermNode::kGround;
  n->hash.store(mix(static_cast<std::uint64_t>(value) ^ detail::kSeedInt) | 1, std::memory_order_relaxed);
  return adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

Term Term::number(double value) {
  auto* n = detail::new_node<detail::FloatNode>(TermKind::Float);
  n->value = value;
  n->flags = detail::TermNode::kGround;
  // Equal values hash equal: -0.0 as 0.0, every NaN alike (NaN equals NaN as a term).
  double key = value == 0.0 ? 0.0 : value;
  std::uint64_t b = std::isnan(key) ? 0x7ff8000000000000ULL : std::bit_cast<std::uint64_t>(key);
  n->hash.store(mix(b ^ detail::kSeedFloat) | 1, std::memory_order_relaxed);
  return adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

Term Term::string(std::string_view s) {
  if (s.size() <= detail::kShortString) {
    std::uint64_t bits = s.size() << 3 | detail::kTagSymbol;
    for (std::size_t i = 0; i < s.size(); ++i)
      bits |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * (i + 1));
    return adopt_bits(bits);
  }
  auto* n = detail::new_node<detail::StringNode>(TermKind::String);
  n->value.assign(s);
  n->flags = detail::TermNode::kGround;
  n->hash.store(mix(std::hash<std::string_view>()(s) ^ detail::kSeedString) | 1,
                std::memory_order_relaxed);
  return adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

Term Term::op_atom(OpPtr op) {
  if (!op) throw TermError("an op term needs an Op");
  auto* n = detail::new_node<detail::OpNode>(TermKind::Op);
  n->hash.store(mix(op->hash() ^ detail::kSeedOp) | 1, std::memory_order_relaxed);
  n->op = std::move(op);
  n->flags = detail::TermNode::kGround | detail::TermNode::kHasOpView;
  return adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

Term Term::graph(const Var& v) {
  if (!v) throw TermError("a graph term needs a variable");
  Var copy = v;
  return adopt_bits(reinterpret_cast<std::uint64_t>(copy.release()) | detail::kTagGraph);
}

Term::Term(const Var& v) {
  if (v) *this = graph(v);
}

Term Term::reified(std::uint64_t index) {
  if (index > detail::kMaxVarId) throw TermError("reified variable index out of range");
  return adopt_bits((index | detail::kReifiedIdBit) << 16 | detail::kTagVar);
}

std::int64_t Term::as_int() const {
  if ((bits_ & detail::kTagMask) == detail::kTagInt) return static_cast<std::int64_t>(bits_) >> 3;
  if (is_heap() && node()->kind == TermKind::Int)
    return static_cast<const detail::IntNode*>(node())->value;
  throw TermError("as_int() of a " + std::string(term_kind_name(kind())));
}

double Term::as_float() const {
  if (is_heap() && node()->kind == TermKind::Float)
    return static_cast<const detail::FloatNode*>(node())->value;
  throw TermError("as_float() of a " + std::string(term_kind_name(kind())));
}

bool Term::as_bool() const {
  if (kind() != TermKind::Bool) throw TermError("as_bool() of a " + std::string(term_kind_name(kind())));
  return (bits_ >> 8) != 0;
}

DType Term::as_dtype() const {
  if (kind() != TermKind::DType)
    throw TermError("as_dtype() of a " + std::string(term_kind_name(kind())));
  return static_cast<DType>(bits_ >> 8);
}

std::string_view Term::as_string() const {
  if ((bits_ & detail::kTagMask) == detail::kTagSymbol)
    return {reinterpret_cast<const char*>(&bits_) + 1, static_cast<std::size_t>((bits_ >> 3) & 7)};
  if (is_heap() && node()->kind == TermKind::String)
    return static_cast<const detail::StringNode*>(node())->value;
  throw TermError("as_string() of a " + std::string(term_kind_name(kind())));
}

const OpPtr& Term::op() const {
  if (is_heap() && node()->kind == TermKind::Op)
    return static_cast<const detail::OpNode*>(node())->op;
  throw TermError("op() of a " + std::string(term_kind_name(kind())));
}

Var Term::as_graph_var() const { return Var(graph_var()); }

const std::string& Term::op_pattern_name() const {
  if (is_heap() && node()->kind == TermKind::OpPattern)
    return static_cast<const detail::OpPatternNode*>(node())->name;
  throw TermError("op_pattern_name() of a " + std::string(term_kind_name(kind())));
}

std::span<const PropTerm> Term::op_pattern_props() const {
  if (is_heap() && node()->kind == TermKind::OpPattern)
    return static_cast<const detail::OpPatternNode*>(node())->props;
  throw TermError("op_pattern_props() of a " + std::string(term_kind_name(kind())));
}

// ---------------------------------------------------------------------------
// Logic variables.

namespace {

constexpr std::uint64_t kIdBlock = 4096;
constexpr std::size_t kMaxNames = 8192;  // index 0 means unnamed

std::atomic<std::uint64_t> g_next_id{1};
struct IdBlock {
  std::uint64_t next = 0, end = 0;
};
thread_local IdBlock t_ids;

std::uint64_t next_var_id() {
  if (t_ids.next == t_ids.end) {
    const std::uint64_t b = g_next_id.fetch_add(kIdBlock, std::memory_order_relaxed);
    if (b + kIdBlock > detail::kMaxVarId) throw TermError("logic variable ids exhausted");
    t_ids.next = b;
    t_ids.end = b + kIdBlock;
  }
  return t_ids.next++;
}

// Interned variable names: the spelling of index i is published once and
// never changes, so readers need no lock.
struct NameTable {
  std::mutex mutex;
  std::unordered_map<std::string, std::uint16_t> index;
  std::array<std::atomic<const std::string*>, kMaxNames> names{};
  std::uint16_t next = 1;
};
NameTable& name_table() {
  static NameTable* t = new NameTable;  // never destroyed: names outlive static terms
  return *t;
}

std::uint16_t name_index(std::string_view name) {
  if (name.empty()) return 0;
  NameTable& t = name_table();
  std::lock_guard lock(t.mutex);
  auto it = t.index.find(std::string(name));
  if (it != t.index.end()) return it->second;
  if (t.next >= kMaxNames) return 0;
  const std::uint16_t i = t.next++;
  auto* s = new std::string(name);
  t.names[i].store(s, std::memory_order_release);
  t.index.emplace(*s, i);
  return i;
}

}  // namespace

Term lvar() { return Term::adopt_bits(next_var_id() << 16 | detail::kTagVar); }

Term lvar(std::string_view name) {
  const std::uint64_t idx = name_index(name);
  return Term::adopt_bits(next_var_id() << 16 | idx << 3 | detail::kTagVar);
}

std::vector<Term> lvars(std::size_t n) {
  std::vector<Term> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(lvar());
  return out;
}

std::string Term::var_name() const {
  if (!is_var()) throw TermError("var_name() of a " + std::string(term_kind_name(kind())));
  if (is_reified_var()) return "_" + std::to_string(var_id() & ~detail::kReifiedIdBit);
  const std::size_t idx = (bits_ >> 3) & (kMaxNames - 1);
  if (idx == 0) return {};
  const std::string* s = name_table().names[idx].load(std::memory_order_acquire);
  return s ? *s : std::string();
}

// ---------------------------------------------------------------------------
// Compound terms.

namespace detail {
namespace {
// Builds head(args…), copying or moving the arguments in.
template <bool kMove> Term build_compound(Term head, const Term* args, std::size_t n) {
  if (!head) throw TermError("a compound term needs a head");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw TermError("too many arguments for a compound term");
  const auto arity = static_cast<std::uint32_t>(n);
  for (std::uint32_t i = 0; i < arity; ++i)
    if (!args[i])
      throw TermError("argument " + std::to_string(i) + " of a compound term is the null term");
  auto* node = new_node<CompoundNode>(TermKind::Compound, compound_bytes(arity));
  bool ground = head.is_ground();
  std::uint8_t flags = TermNode::kHasCompound | child_flags(head);
  Term* dst = node->args();
  for (std::uint32_t i = 0; i < arity; ++i) {
    ground = ground && args[i].is_ground();
    flags |= child_flags(args[i]);
    if constexpr (kMove) {
      new (&dst[i]) Term(std::move(const_cast<Term&>(args[i])));
    } else {
      new (&dst[i]) Term(args[i]);
    }
  }
  node->head = std::move(head);
  node->arity = arity;
  node->flags = flags | (ground ? TermNode::kGround : 0);
  return Term::adopt_bits(reinterpret_cast<std::uint64_t>(node));
}
}  // namespace

Term make_compound(Term head, Term* args, std::size_t n) {
  return build_compound<true>(std::move(head), args, n);
}
}  // namespace detail

Term compound(Term head, std::span<const Term> args) {
  return detail::build_compound<false>(std::move(head), args.data(), args.size());
}

Term compound(Term head, std::initializer_list<Term> args) {
  return compound(std::move(head), std::span<const Term>(args.begin(), args.size()));
}

Term cons(Term car, Term cdr) {
  if (!car || !cdr) throw TermError("a pair needs a car and a cdr");
  auto* n = detail::new_node<detail::PairNode>(TermKind::Pair);
  n->flags = detail::TermNode::kHasPair | detail::child_flags(car) | detail::child_flags(cdr) |
             (car.is_ground() && cdr.is_ground() ? detail::TermNode::kGround : 0);
  n->car = std::move(car);
  n->cdr = std::move(cdr);
  return Term::adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

Term list(std::span<const Term> items, Term tail) {
  Term out = std::move(tail);
  for (std::size_t i = items.size(); i-- > 0;) out = cons(items[i], std::move(out));
  return out;
}

Term list(std::initializer_list<Term> items, Term tail) {
  return list(std::span<const Term>(items.begin(), items.size()), std::move(tail));
}

Term tuple(std::span<const Term> items) { return compound(Term::tuple_tag(), items); }

Term tuple(std::initializer_list<Term> items) {
  return compound(Term::tuple_tag(), std::span<const Term>(items.begin(), items.size()));
}

Term op_pattern(std::string name, std::vector<PropTerm> props) {
  if (name.empty()) throw TermError("an op pattern needs an op name");
  for (std::size_t i = 0; i < props.size(); ++i) {
    if (!props[i].value)
      throw TermError("property `" + props[i].name + "` of op pattern `" + name +
                      "` is the null term");
    for (std::size_t j = 0; j < i; ++j)
      if (props[j].name == props[i].name)
        throw TermError("op pattern `" + name + "` names property `" + props[i].name + "` twice");
  }
  auto* n = detail::new_node<detail::OpPatternNode>(TermKind::OpPattern);
  std::uint64_t h = detail::combine(detail::kSeedPattern, std::hash<std::string>()(name));
  bool ground = true;
  for (const PropTerm& p : props) {
    h = detail::combine(detail::combine(h, std::hash<std::string>()(p.name)), p.value.hash());
    ground = ground && p.value.is_ground();
  }
  std::uint8_t flags = detail::TermNode::kHasOpView;
  for (const PropTerm& p : props) flags |= detail::child_flags(p.value);
  n->name = std::move(name);
  n->props = std::move(props);
  n->hash.store(h | 1, std::memory_order_relaxed);
  n->flags = flags | (ground ? detail::TermNode::kGround : 0);
  return Term::adopt_bits(reinterpret_cast<std::uint64_t>(n));
}

// ---------------------------------------------------------------------------
// Structural equality.

namespace {
struct TermPair {
  const Term* x;
  const Term* y;
};
}  // namespace

bool equal(const Term& a, const Term& b) {
  detail::SmallStack<TermPair, 32> stack;
  stack.push_back({&a, &b});
  while (!stack.empty()) {
    auto [x, y] = stack.back();
    stack.pop_back();
    if (x->bits() == y->bits()) continue;
    if (!x->is_heap() || !y->is_heap()) return false;
    const detail::TermNode* nx = x->node();
    const detail::TermNode* ny = y->node();
    if (nx->kind != ny->kind || detail::node_hash(nx) != detail::node_hash(ny)) return false;
    switch (nx->kind) {
      case TermKind::Int:
        if (x->as_int() != y->as_int()) return false;
        break;
      case TermKind::Float: {
        const double u = x->as_float(), v = y->as_float();
        if (!(u == v || (std::isnan(u) && std::isnan(v)))) return false;
        break;
      }
      case TermKind::String:
        if (x->as_string() != y->as_string()) return false;
        break;
      case TermKind::Op:
        if (!(*x->op() == *y->op())) return false;
        break;
      case TermKind::OpPattern: {
        auto px = x->op_pattern_props(), py = y->op_pattern_props();
        if (x->op_pattern_name() != y->op_pattern_name() || px.size() != py.size()) return false;
        for (std::size_t i = 0; i < px.size(); ++i) {
          if (px[i].name != py[i].name) return false;
          stack.push_back({&px[i].value, &py[i].value});
        }
        break;
      }
      case TermKind::Pair:
        stack.push_back({&x->cdr(), &y->cdr()});
        stack.push_back({&x->car(), &y->car()});
        break;
      case TermKind::Compound: {
        auto ax = x->args(), ay = y->args();
        if (ax.size() != ay.size()) return false;
        for (std::size_t i = ax.size(); i-- > 0;) stack.push_back({&ax[i], &ay[i]});
        stack.push_back({&x->head(), &y->head()});
        break;
      }
      default: return false;
    }
  }
  return true;
}

}  // namespace rw
