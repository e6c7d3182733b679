// Terms: logic variables, atoms, cons cells, compound terms head(args…), and
// graph variables as leaves — immutable, counted, hashed and cheap to copy.
#pragma once

#include <atomic>
#include <bit>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/dtype.hpp"

namespace rw {

/// A term was built or taken apart wrongly (a null head, `args()` of an atom).
class TermError : public Error {
 public:
  using Error::Error;
};

/// What a term is.
enum class TermKind : std::uint8_t {
  Null,       ///< the empty handle `Term()`; not a term
  Var,        ///< a logic variable
  Int,        ///< a literal integer (int64)
  Float,      ///< a literal number (double)
  Bool,       ///< `true` / `false`
  None,       ///< `none` (an absent property, Aesara's `None`)
  DType,      ///< an element type (`float64`)
  String,     ///< a symbol or string atom
  Nil,        ///< the empty list `()`
  TupleTag,   ///< the head of tuple terms `[a, b]`
  Op,         ///< an Op value with its properties
  OpPattern,  ///< an Op name with property terms: `sum{axis=?a}`
  Pair,       ///< a cons cell `(car . cdr)`
  Compound,   ///< `head(args…)`
  Graph,      ///< a graph Variable, read lazily as `op(inputs…)` when it has an owner
};

/// "variable", "integer", "compound", … for messages.
std::string_view term_kind_name(TermKind kind);

class Term;

namespace detail {

/// Header of every heap-allocated term. Counts are atomic: terms are
/// immutable and may be shared between threads (see docs/unify.md).
struct TermNode {
  std::atomic<std::uint32_t> rc{1};
  TermKind kind;
  std::uint8_t flags = 0;
  std::uint16_t pad = 0;
  /// Structural hash; 0 until computed (pairs and compounds compute theirs
  /// on first use, so building terms that are never compared costs nothing).
  mutable std::atomic<std::uint64_t> hash{0};

  static constexpr std::uint8_t kGround = 1;       // no logic variable inside
  static constexpr std::uint8_t kHasOpView = 2;    // an Op, op pattern or graph variable inside
  static constexpr std::uint8_t kHasPair = 4;      // a pair inside (or this is one)
  static constexpr std::uint8_t kHasCompound = 8;  // a compound inside (or this is one)
  static constexpr std::uint8_t kShapeFlags = kHasOpView | kHasPair | kHasCompound;
};

// Tagged word layout: the low three bits say what the other 61 hold.
inline constexpr std::uint64_t kTagMask = 7;
inline constexpr std::uint64_t kTagHeap = 0;     // TermNode* (0: the null term)
inline constexpr std::uint64_t kTagInt = 1;      // 61-bit signed integer
inline constexpr std::uint64_t kTagVar = 2;      // id << 16 | name index << 3
inline constexpr std::uint64_t kTagGraph = 3;    // Variable*
inline constexpr std::uint64_t kTagSpecial = 4;  // payload << 8 | sub-kind << 3
inline constexpr std::uint64_t kTagSymbol = 5;   // bytes 1-7: the characters; length << 3
/// Strings of at most this many bytes live in the word (kTagSymbol); longer
/// ones are heap nodes. Each string has one form, so equal strings have equal
/// words when short.
inline constexpr std::size_t kShortString = 7;
static_assert(std::endian::native == std::endian::little,
              "short strings are read in place from the word's bytes 1-7");
inline constexpr std::int64_t kSmallIntMin = -(std::int64_t{1} << 60);
inline constexpr std::int64_t kSmallIntMax = (std::int64_t{1} << 60) - 1;
/// Ids of reified variables (`_0`, `_1`, …) have this bit set.
inline constexpr std::uint64_t kReifiedIdBit = std::uint64_t{1} << 47;
inline constexpr std::uint64_t kMaxVarId = kReifiedIdBit - 1;

void release_node(TermNode* node) noexcept;
/// A compound whose arguments are moved out of `args`.
Term make_compound(Term head, Term* args, std::size_t n);
/// Computes and stores the hash of a pair or compound (iteratively).
std::uint64_t compute_hash(const TermNode* node) noexcept;
inline std::uint64_t node_hash(const TermNode* node) noexcept {
  const std::uint64_t h = node->hash.load(std::memory_order_relaxed);
  return h ? h : compute_hash(node);
}
void retain_graph(std::uint64_t bits) noexcept;
void release_graph(std::uint64_t bits) noexcept;

inline void retain_bits(std::uint64_t bits) noexcept {
  const std::uint64_t tag = bits & kTagMask;
  if (tag == kTagHeap) {
    if (bits) reinterpret_cast<TermNode*>(bits)->rc.fetch_add(1, std::memory_order_relaxed);
  } else if (tag == kTagGraph) {
    retain_graph(bits);
  }
}

inline void release_bits(std::uint64_t bits) noexcept {
  const std::uint64_t tag = bits & kTagMask;
  if (tag == kTagHeap) {
    if (bits) {
      auto* n = reinterpret_cast<TermNode*>(bits);
      if (n->rc.fetch_sub(1, std::memory_order_acq_rel) == 1) release_node(n);
    }
  } else if (tag == kTagGraph) {
    release_graph(bits);
  }
}

struct PairNode;
struct CompoundNode;
struct OpPatternNode;
}  // namespace detail

/// A property of an Op pattern: a name and a term (ground, or with logic
/// variables to bind).
struct PropTerm;

/// A term: a counted handle to an immutable value. Small integers, logic
/// variables, graph variables and the special atoms live in the handle
/// itself (no allocation); other terms are shared heap nodes carrying their
/// structural hash and whether they contain logic variables.
///
/// `==` is structural equality (O(1) when the hashes differ or the nodes are
/// the same; graph variables compare by identity); `same` is identity.
class Term {
 public:
  /// The null term (not a term: the empty handle).
  constexpr Term() noexcept = default;
  Term(const Term& o) noexcept : bits_(o.bits_) { detail::retain_bits(bits_); }
  Term(Term&& o) noexcept : bits_(std::exchange(o.bits_, 0)) {}
  Term& operator=(const Term& o) noexcept {
    Term(o).swap(*this);
    return *this;
  }
  Term& operator=(Term&& o) noexcept {
    Term(std::move(o)).swap(*this);
    return *this;
  }
  ~Term() { detail::release_bits(bits_); }
  void swap(Term& o) noexcept { std::swap(bits_, o.bits_); }

  /// A literal integer.
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Term(T value) : Term(integer(value)) {}  // NOLINT: implicit, as Halide's Expr from int
  /// A literal number.
  template <std::floating_point T>
  Term(T value) : Term(number(static_cast<double>(value))) {}  // NOLINT
  /// A string atom (a symbol). Throws TermError for a null pointer.
  Term(const char* s) : Term(s ? string(s) : throw TermError("a string term needs a string")) {}  // NOLINT
  /// Not a term: use `Term()` for the null term.
  Term(std::nullptr_t) = delete;
  Term(std::string_view s) : Term(string(s)) {}  // NOLINT
  Term(const std::string& s) : Term(string(s)) {}  // NOLINT
  /// An Op atom.
  template <class O>
    requires std::derived_from<O, Op>
  Term(std::shared_ptr<O> op) : Term(op_atom(std::shared_ptr<const Op>(std::move(op)))) {}  // NOLINT
  /// A graph variable (null stays the null term).
  Term(const Var& v);  // NOLINT

  /// Literal constructors.
  static Term integer(std::int64_t value);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  static Term integer(T value) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
      if (value > static_cast<T>(std::numeric_limits<std::int64_t>::max()))
        throw TermError("integer " + std::to_string(value) + " does not fit in int64");
    }
    return integer(static_cast<std::int64_t>(value));
  }
  static Term number(double value);
  static Term boolean(bool value) noexcept;
  static Term none() noexcept;
  static Term dtype(DType type) noexcept;
  static Term string(std::string_view s);
  static Term nil() noexcept;
  static Term tuple_tag() noexcept;
  /// An Op atom; throws TermError for a null Op.
  static Term op_atom(OpPtr op);
  /// A graph variable leaf; throws TermError for a null Var.
  static Term graph(const Var& v);
  /// The i-th reified variable, printed `_i`.
  static Term reified(std::uint64_t index);

  /// What the term is.
  TermKind kind() const noexcept;
  /// Kind tests (cheap: most read only the tag bits).
  bool is_null() const noexcept { return bits_ == 0; }
  explicit operator bool() const noexcept { return bits_ != 0; }
  bool is_var() const noexcept { return (bits_ & detail::kTagMask) == detail::kTagVar; }
  bool is_graph() const noexcept { return (bits_ & detail::kTagMask) == detail::kTagGraph; }
  bool is_heap() const noexcept {
    return (bits_ & detail::kTagMask) == detail::kTagHeap && bits_ != 0;
  }
  bool is_compound() const noexcept { return is_heap() && node()->kind == TermKind::Compound; }
  bool is_pair() const noexcept { return is_heap() && node()->kind == TermKind::Pair; }
  bool is_nil() const noexcept;
  /// A compound whose head is the tuple tag: `[a, b]`.
  bool is_tuple() const noexcept;
  /// Contains no logic variable (graph variables are ground).
  bool is_ground() const noexcept {
    return is_heap() ? (node()->flags & detail::TermNode::kGround) != 0 : !is_var();
  }
  /// Structural hash, consistent with `==`.
  std::uint64_t hash() const noexcept;

  /// The variable's unique id (reified variables have kReifiedIdBit set).
  std::uint64_t var_id() const noexcept { return bits_ >> 16; }
  /// The name it was created with ("" when none; "_3" for reified ones).
  std::string var_name() const;
  bool is_reified_var() const noexcept {
    return is_var() && (var_id() & detail::kReifiedIdBit) != 0;
  }

  /// Atom values; each throws TermError for a term of another kind.
  std::int64_t as_int() const;
  double as_float() const;
  bool as_bool() const;
  DType as_dtype() const;
  /// The characters of a string term. A string of up to 7 bytes lives in the
  /// handle itself, so the view is valid while this handle lives unchanged
  /// (a longer one while any handle to it lives).
  std::string_view as_string() const;
  const OpPtr& op() const;
  /// The graph variable of a Graph term.
  Variable* graph_var() const;
  /// The graph variable as a counted handle.
  Var as_graph_var() const;

  /// Parts of compounds, pairs and op patterns; each throws TermError for a
  /// term of another kind (and `arg` for an index out of range).
  const Term& head() const;
  std::size_t arity() const;
  std::span<const Term> args() const;
  const Term& arg(std::size_t i) const;
  const Term& car() const;
  const Term& cdr() const;
  const std::string& op_pattern_name() const;
  std::span<const PropTerm> op_pattern_props() const;

  /// head(args…): `mul(x, 1)` builds a compound with this term as its head.
  template <class... A> Term operator()(A&&... a) const;

  /// Identity: the same node (or the same immediate value).
  bool same(const Term& o) const noexcept { return bits_ == o.bits_; }
  friend bool operator==(const Term& a, const Term& b);

  /// The tagged word; equal words mean identical terms.
  std::uint64_t bits() const noexcept { return bits_; }
  const detail::TermNode* node() const noexcept {
    return reinterpret_cast<const detail::TermNode*>(bits_);
  }

  /// Takes over a reference held in `bits` (from `release_bits_unchecked`).
  static Term adopt_bits(std::uint64_t bits) noexcept {
    Term t;
    t.bits_ = bits;
    return t;
  }
  /// Gives up this handle's reference and returns its word.
  [[nodiscard]] std::uint64_t release() noexcept { return std::exchange(bits_, 0); }

 private:
  friend Term lvar();
  friend Term lvar(std::string_view name);
  std::uint64_t bits_ = 0;
};

static_assert(sizeof(Term) == sizeof(std::uint64_t));

struct PropTerm {
  /// The property's name (`axis`).
  std::string name;
  /// Its value: a ground term, or one with logic variables to bind.
  Term value;
  friend bool operator==(const PropTerm&, const PropTerm&) = default;
};

namespace detail {
/// A Term that borrows a reference for its lifetime: constructing and
/// destroying it leave the count alone. Traversals use it to look at words
/// they hold without owning (the term is kept alive elsewhere).
class BorrowedTerm {
 public:
  explicit BorrowedTerm(std::uint64_t bits) noexcept { new (&t_) Term(Term::adopt_bits(bits)); }
  BorrowedTerm(const BorrowedTerm&) = delete;
  BorrowedTerm& operator=(const BorrowedTerm&) = delete;
  ~BorrowedTerm() { (void)t_.release(); }
  const Term& get() const noexcept { return t_; }
  operator const Term&() const noexcept { return t_; }  // NOLINT

 private:
  union {
    Term t_;
  };
};
}  // namespace detail

/// A fresh logic variable, unnamed (printed `?_<id>`) or named (printed
/// `?name`; names only help printing — two variables with one name are
/// distinct). At most 8191 distinct names keep their spelling; later ones
/// print as unnamed.
Term lvar();
Term lvar(std::string_view name);
/// `n` fresh unnamed variables.
std::vector<Term> lvars(std::size_t n);

/// head(args…). Throws TermError for a null head or argument.
Term compound(Term head, std::span<const Term> args);
Term compound(Term head, std::initializer_list<Term> args);
/// head(a, b, …) with the arguments moved in: `compound(mul, x, 1)`.
template <class... A>
  requires(sizeof...(A) >= 1 && (std::constructible_from<Term, A&&> && ...) &&
           !(sizeof...(A) == 1 && (std::convertible_to<A, std::span<const Term>> || ...)))
Term compound(Term head, A&&... args) {
  Term items[] = {Term(std::forward<A>(args))...};
  return detail::make_compound(std::move(head), items, sizeof...(A));
}
/// The cons cell (car . cdr).
Term cons(Term car, Term cdr);
/// The proper list (a b c), or the improper list (a b . tail).
Term list(std::span<const Term> items, Term tail = Term::nil());
Term list(std::initializer_list<Term> items, Term tail = Term::nil());
/// The tuple [a, b, …] (how int-tuple properties read as terms).
Term tuple(std::span<const Term> items);
Term tuple(std::initializer_list<Term> items);
/// An Op pattern: the Op called `name` whose listed properties unify with
/// the given terms; properties not listed are unconstrained when matching and
/// take the registry's defaults when building.
Term op_pattern(std::string name, std::vector<PropTerm> props = {});

/// Structural equality (iterative; graph variables by identity).
bool equal(const Term& a, const Term& b);

/// Hash functor for unordered containers.
struct TermHash {
  std::size_t operator()(const Term& t) const noexcept { return t.hash(); }
};

// ---------------------------------------------------------------------------
// Node layouts and inline definitions.

namespace detail {

struct IntNode : TermNode {
  std::int64_t value;
};
struct FloatNode : TermNode {
  double value;
};
struct StringNode : TermNode {
  std::string value;
};
struct OpNode : TermNode {
  OpPtr op;
};
struct PairNode : TermNode {
  Term car, cdr;
};
/// Allocated with its arguments after it; the head and the arguments are
/// contiguous, so traversals read the children as one array.
struct CompoundNode : TermNode {
  std::uint32_t arity = 0;
  std::uint32_t pad = 0;
  Term head;
  Term* args() noexcept { return reinterpret_cast<Term*>(this + 1); }
  const Term* args() const noexcept { return reinterpret_cast<const Term*>(this + 1); }
};
static_assert(sizeof(CompoundNode) % alignof(Term) == 0);
// arity, pad, head: no padding after the head, so the arguments follow it.
static_assert(sizeof(CompoundNode) == sizeof(TermNode) + 8 + sizeof(Term));
struct OpPatternNode : TermNode {
  std::string name;
  std::vector<PropTerm> props;
};

inline constexpr std::uint64_t kSpecialNil = 0;
inline constexpr std::uint64_t kSpecialNone = 1;
inline constexpr std::uint64_t kSpecialBool = 2;
inline constexpr std::uint64_t kSpecialDType = 3;
inline constexpr std::uint64_t kSpecialTuple = 4;
constexpr std::uint64_t special_bits(std::uint64_t sub, std::uint64_t payload = 0) {
  return payload << 8 | sub << 3 | kTagSpecial;
}
/// 64-bit mixer (splitmix64's finaliser).
constexpr std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
}  // namespace detail

inline Term Term::boolean(bool value) noexcept {
  return adopt_bits(detail::special_bits(detail::kSpecialBool, value ? 1 : 0));
}
inline Term Term::none() noexcept { return adopt_bits(detail::special_bits(detail::kSpecialNone)); }
inline Term Term::nil() noexcept { return adopt_bits(detail::special_bits(detail::kSpecialNil)); }
inline Term Term::tuple_tag() noexcept {
  return adopt_bits(detail::special_bits(detail::kSpecialTuple));
}
inline Term Term::dtype(DType type) noexcept {
  return adopt_bits(detail::special_bits(detail::kSpecialDType, static_cast<std::uint64_t>(type)));
}
inline bool Term::is_nil() const noexcept {
  return bits_ == detail::special_bits(detail::kSpecialNil);
}
inline bool Term::is_tuple() const noexcept {
  return is_compound() && static_cast<const detail::CompoundNode*>(node())->head.bits_ ==
                              detail::special_bits(detail::kSpecialTuple);
}

inline TermKind Term::kind() const noexcept {
  switch (bits_ & detail::kTagMask) {
    case detail::kTagHeap: return bits_ ? node()->kind : TermKind::Null;
    case detail::kTagInt: return TermKind::Int;
    case detail::kTagVar: return TermKind::Var;
    case detail::kTagGraph: return TermKind::Graph;
    case detail::kTagSymbol: return TermKind::String;
    default:
      switch ((bits_ >> 3) & 31) {
        case detail::kSpecialNil: return TermKind::Nil;
        case detail::kSpecialNone: return TermKind::None;
        case detail::kSpecialBool: return TermKind::Bool;
        case detail::kSpecialDType: return TermKind::DType;
        default: return TermKind::TupleTag;
      }
  }
}

inline std::uint64_t Term::hash() const noexcept {
  return is_heap() ? detail::node_hash(node()) : detail::mix(bits_);
}

inline Variable* Term::graph_var() const {
  if (!is_graph()) throw TermError("graph_var() of a " + std::string(term_kind_name(kind())));
  return reinterpret_cast<Variable*>(bits_ & ~detail::kTagMask);
}

inline const Term& Term::head() const {
  if (!is_compound()) throw TermError("head() of a " + std::string(term_kind_name(kind())));
  return static_cast<const detail::CompoundNode*>(node())->head;
}
inline std::size_t Term::arity() const {
  if (!is_compound()) throw TermError("arity() of a " + std::string(term_kind_name(kind())));
  return static_cast<const detail::CompoundNode*>(node())->arity;
}
inline std::span<const Term> Term::args() const {
  if (!is_compound()) throw TermError("args() of a " + std::string(term_kind_name(kind())));
  const auto* c = static_cast<const detail::CompoundNode*>(node());
  return {c->args(), c->arity};
}
inline const Term& Term::arg(std::size_t i) const {
  auto a = args();
  if (i >= a.size())
    throw TermError("argument " + std::to_string(i) + " of a compound of arity " +
                    std::to_string(a.size()));
  return a[i];
}
inline const Term& Term::car() const {
  if (!is_pair()) throw TermError("car() of a " + std::string(term_kind_name(kind())));
  return static_cast<const detail::PairNode*>(node())->car;
}
inline const Term& Term::cdr() const {
  if (!is_pair()) throw TermError("cdr() of a " + std::string(term_kind_name(kind())));
  return static_cast<const detail::PairNode*>(node())->cdr;
}

template <class... A> Term Term::operator()(A&&... a) const {
  if constexpr (sizeof...(A) == 0) {
    return compound(*this, std::span<const Term>());
  } else {
    Term items[] = {Term(std::forward<A>(a))...};
    return detail::make_compound(*this, items, sizeof...(A));
  }
}

inline bool operator==(const Term& a, const Term& b) {
  if (a.bits_ == b.bits_) return true;
  if (!a.is_heap() || !b.is_heap()) return false;
  if (detail::node_hash(a.node()) != detail::node_hash(b.node())) return false;
  return equal(a, b);
}

}  // namespace rw

template <> struct std::hash<rw::Term> {
  std::size_t operator()(const rw::Term& t) const noexcept { return t.hash(); }
};
