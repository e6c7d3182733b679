// The Op interface: what an operation computes, how it types its outputs, its
// shape, gradient and view behaviour, and the properties that define equality.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <variant>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/native_code.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The value of one Op property (Aesara's `__props__` entry). `monostate`
/// stands for "none" (e.g. `axis=None`, meaning all axes).
using PropValue =
    std::variant<std::monostate, bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                 DType>;

/// A named property.
struct Prop {
  std::string name;
  PropValue value;
  friend bool operator==(const Prop&, const Prop&) = default;
};

/// The properties of an Op, in a fixed order. Two Ops of the same class with
/// equal properties are equal and hash equal.
using Props = std::vector<Prop>;

/// Renders a value as the DSL writes it: `(0, 1)`, `float64`, `true`, `1.5`.
std::string format_prop_value(const PropValue& value);
/// The value of property `prop` as rules and graph files write it: as above,
/// with the words of integer tuples (tuple_codes.hpp) in place of their codes
/// — `x` for kNewAxis in `order`, `i` for kIndexFromInput in `index` — so
/// that `dimshuffle{order=(x,0)}` prints as the file wrote it. Op::to_string
/// prints every property this way.
std::string format_prop_value(std::string_view prop, const PropValue& value);
/// The word for entry `value` of the integer tuple property `prop` (`x`,
/// `i`), or an empty view when the entry is a plain number.
std::string_view tuple_word(std::string_view prop, std::int64_t value);
std::size_t hash_prop_value(const PropValue& value);
/// The value of property `name`, or nullptr.
const PropValue* find_prop(const Props& props, std::string_view name);

/// Which inputs an output aliases (`view_map`) or overwrites (`destroy_map`):
/// pairs (output index, input index).
using IoMap = std::vector<std::pair<std::size_t, std::size_t>>;

/// The symbolic shape of one variable: one 0-d int64 variable per axis.
using ShapeVars = std::vector<Var>;

/// A small number standing for an Op name, the same for every Op of that
/// name in the process (names are interned once, thread-safely, and never
/// forgotten). Drivers dispatch on it and matchers compare it where they
/// would compare names: `a.kind() == b.kind()` iff `a.name() == b.name()`.
class OpKind {
 public:
  /// No kind: no Op has it.
  constexpr OpKind() noexcept = default;
  /// The kind of Ops named `name` (interning the name on first use).
  static OpKind of(std::string_view name);
  /// The number: 1, 2, … in order of first use; 0 for no kind. Small, so a
  /// table indexed by it stays small.
  constexpr std::uint32_t index() const noexcept { return id_; }
  /// The name it stands for ("" for no kind).
  std::string_view name() const;
  explicit constexpr operator bool() const noexcept { return id_ != 0; }
  friend constexpr bool operator==(OpKind, OpKind) noexcept = default;

 private:
  friend class Op;
  explicit constexpr OpKind(std::uint32_t id) noexcept : id_(id) {}
  std::uint32_t id_ = 0;
};

/// How printers show an Op.
struct PrintStyle {
  enum class Kind : std::uint8_t { Call, Infix, Prefix };
  Kind kind = Kind::Call;
  std::string_view symbol;  // "+", "-", …; empty for calls
  int precedence = 100;     // higher binds tighter
  bool right_assoc = false;
};

/// An operation. Ops are immutable values created through std::make_shared;
/// their identity is their class, name and properties.
///
/// Only `name` and `make_node` are required. The other methods have defaults
/// that say "not available" (an Op with no `perform` cannot be run, one with
/// no `grad` is not differentiable) so that each Op states what it supports.
class Op : public std::enable_shared_from_this<Op> {
 public:
  virtual ~Op();

  /// The registry name: "add", "sum", "dimshuffle".
  virtual std::string_view name() const = 0;
  /// The kind of its name, `OpKind::of(name())`, looked up once per Op.
  OpKind kind() const {
    const std::uint32_t k = kind_.load(std::memory_order_relaxed);
    return k ? OpKind(k) : intern_kind();
  }
  /// A small number standing for the Op's dynamic class, interned from the
  /// class's type_info name and looked up once per Op: equal for Ops of one
  /// class (also across shared libraries), so different numbers mean
  /// different classes. Two classes of internal linkage may share a name and
  /// so a number. `ops_detail::op_as` compares it first, as comparing
  /// type_info objects compares their names as strings whenever the objects
  /// differ, which is most of the time.
  std::uint32_t class_index() const {
    const std::uint32_t c = class_.load(std::memory_order_relaxed);
    return c ? c : intern_class();
  }
  /// The number `class_index` gives the Ops of class `type` (interning it).
  static std::uint32_t class_index_of(const std::type_info& type);
  static std::uint32_t class_index_of(const std::type_index& type);
  /// The properties that, with the class, define equality and hash.
  virtual Props props() const { return {}; }
  /// `props()`, computed on first use and kept: an Op is immutable, and the
  /// matcher, rule filters and `equals` ask for them at every node they see.
  const Props& cached_props() const;
  /// Same class, name and properties. The default compares hashes first, so
  /// unequal Ops usually differ in a word.
  virtual bool equals(const Op& other) const;
  /// Hash consistent with `equals`; computed once.
  std::size_t hash() const {
    const std::size_t h = hash_.load(std::memory_order_relaxed);
    return h ? h : compute_hash();
  }
  /// `name{prop=value,…}`, or the name alone when there are no properties.
  virtual std::string to_string() const;
  virtual PrintStyle print_style() const { return {}; }

  /// Checks and converts the inputs, infers the output types, and returns the
  /// node. Throws TypeError naming the input at fault.
  virtual ApplyRef make_node(std::span<const Var> inputs) const = 0;
  /// `make_node(inputs).default_output()`: the Op applied like a function.
  Var operator()(std::span<const Var> inputs) const;
  Var operator()(std::initializer_list<Var> inputs) const;

  /// Computes the outputs. An output slot may hold a tensor from an earlier
  /// call that the Op may reuse when its dtype and shape fit.
  virtual void perform(const Apply& node, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const;

  /// `perform` with checks of its own that are too slow for every run: what
  /// DebugMode calls instead of `perform` (FunctionOptions::debug_mode). The
  /// default is `perform`. An Op whose outputs are left uninitialised
  /// (AllocEmpty) fills them with NaN here, so that a read before a write
  /// shows in the results.
  virtual void debug_perform(const Apply& node, std::span<const Tensor> inputs,
                             std::span<Tensor> outputs) const;

  /// C++ source computing this node for the native backend (Aesara's
  /// c_code and its companions; docs/native.md). Empty, the default: the
  /// node has no native code and a native function runs `perform`.
  virtual std::optional<NativeCode> native_code(const Apply& node,
                                                const NativeNames& names) const;

  /// The floating-point operations one perform does on inputs and outputs of
  /// these shapes (a multiply-add counts two), for the function profile's
  /// GFLOP/s. Empty when the Op does not say (the default).
  virtual std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                                      std::span<const Shape> output_shapes) const;

  /// The shapes of the outputs as symbolic variables, from the inputs' shapes.
  /// Throws NotImplementedError when the Op cannot say.
  virtual std::vector<ShapeVars> infer_shape(const Apply& node,
                                             std::span<const ShapeVars> input_shapes) const;

  /// Reverse mode: the gradient with respect to each input given the
  /// gradients of the outputs (Aesara's L_op). Defaults to `grad`.
  virtual std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const;
  /// Reverse mode without the outputs. Throws NotImplementedError by default.
  virtual std::vector<Var> grad(const Apply& node, std::span<const Var> output_grads) const;
  /// Forward mode: the directional derivative of each output along
  /// `eval_points` (one per input; a null Var means zero). Throws
  /// NotImplementedError by default.
  virtual std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const;
  /// connection[i][j]: whether output j depends on input i. All true by default.
  virtual std::vector<std::vector<bool>> connection_pattern(const Apply& node) const;

  /// The output a call of the Op returns when it has several.
  virtual std::optional<std::size_t> default_output() const { return std::nullopt; }
  /// Outputs that are views of inputs.
  virtual IoMap view_map() const { return {}; }
  /// Outputs computed by overwriting inputs.
  virtual IoMap destroy_map() const { return {}; }
  /// `view_map()` and `destroy_map()`, computed on first use and kept, for
  /// the passes that ask them of every node they look at.
  const IoMap& cached_view_map() const;
  const IoMap& cached_destroy_map() const;
  /// `default_updates()`, computed on first use and kept.
  const IoMap& cached_default_updates() const;
  /// Whether constant folding may evaluate this node when its inputs are
  /// constants (false for Ops whose output should stay symbolic, e.g. alloc).
  virtual bool do_constant_folding(const Apply& node) const;
  /// Whether merging may make one node of two of this Op with the same
  /// inputs (false for random draws: two draws are two values, even from
  /// one generator state; docs/random.md).
  virtual bool mergeable() const { return true; }
  /// Outputs that are the next value of an input: pairs (output index, input
  /// index). When that input is a shared variable, a compiled function that
  /// is given no update for it assigns it the output after each call
  /// (Aesara's `default_update`; a random variable's next generator state).
  virtual IoMap default_updates() const { return {}; }

  std::shared_ptr<const Op> ptr() const { return shared_from_this(); }

 private:
  OpKind intern_kind() const;
  std::uint32_t intern_class() const;
  std::size_t compute_hash() const;

  mutable std::atomic<std::size_t> hash_{0};
  mutable std::atomic<std::uint32_t> kind_{0};
  mutable std::atomic<std::uint32_t> class_{0};
  mutable std::atomic<const Props*> props_{nullptr};
  mutable std::atomic<const IoMap*> view_map_{nullptr};
  mutable std::atomic<const IoMap*> destroy_map_{nullptr};
  mutable std::atomic<const IoMap*> default_updates_{nullptr};
};

inline bool operator==(const Op& a, const Op& b) { return &a == &b || a.equals(b); }

/// Hash/equality functors for maps keyed by Op value.
struct OpHash {
  std::size_t operator()(const OpPtr& op) const { return op->hash(); }
};
struct OpEqual {
  bool operator()(const OpPtr& a, const OpPtr& b) const { return *a == *b; }
};

}  // namespace rw
