// Reverse mode: grad (the gradient of a scalar cost) and Lop (vector-Jacobian
// products), through each Op's L_op, as Aesara's aesara.gradient.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/variable.hpp"

namespace rw {

/// What grad does with a requested variable the cost does not depend on.
enum class DisconnectedInputs : std::uint8_t {
  Raise,   ///< throw DisconnectedInputError naming the variable (Aesara's default)
  Warn,    ///< report through GradOptions::warn, then as Ignore
  Ignore,  ///< return what `return_disconnected` says
};

/// What grad returns for a disconnected variable (after Warn or Ignore).
enum class ReturnDisconnected : std::uint8_t {
  Zero,          ///< zeros of the variable's shape (a float dtype)
  Disconnected,  ///< a variable of DisconnectedType
  None,          ///< a null Var
};

/// What grad does with an undefined (NullType) gradient it is asked for.
enum class NullGradients : std::uint8_t {
  Raise,   ///< throw NullGradientError naming the Op and input at fault
  Return,  ///< return the NullType variable
};

/// How grad and Lop build the gradient (Aesara's keyword arguments).
struct GradOptions {
  /// Variables treated as constants: no gradient flows through them.
  std::vector<Var> consider_constant;
  /// (variable, its gradient) pairs given from outside, added to what flows
  /// back from the cost; with them the cost may be null.
  std::vector<std::pair<Var, Var>> known_grads;
  DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise;
  ReturnDisconnected return_disconnected = ReturnDisconnected::Zero;
  NullGradients null_gradients = NullGradients::Raise;
  /// Where Warn reports; standard error when empty.
  std::function<void(const std::string&)> warn;
};

/// The gradient of the 0-d `cost` with respect to each variable of `wrt`
/// (inputs or intermediate variables), built by visiting the nodes between
/// them in reverse topological order and calling each Op's L_op. A variable
/// used several times accumulates the gradients of its uses (one `add`).
/// Integer and bool variables get float zeros. An Op whose L_op is missing
/// (NotImplementedError) makes the gradient of its inputs undefined, which is
/// an error only when a requested gradient depends on it.
///
/// Throws TypeError for a cost that is not a 0-d tensor, a null `wrt` entry,
/// or a known gradient whose rank differs from its variable's;
/// DisconnectedInputError and NullGradientError as the options say; Error
/// when an Op's L_op returns gradients of the wrong number or rank (naming
/// the Op and input).
std::vector<Var> grad(const Var& cost, std::span<const Var> wrt, const GradOptions& options = {});
std::vector<Var> grad(const Var& cost, std::initializer_list<Var> wrt,
                      const GradOptions& options = {});
/// The gradient with respect to one variable.
Var grad(const Var& cost, const Var& wrt, const GradOptions& options = {});

/// The vector-Jacobian products eval_points^T · ∂f/∂wrt: the gradient of
/// nothing, with `eval_points[k]` as the known gradient of `f[k]` (Aesara's
/// Lop). Throws Error when the counts differ, TypeError for an eval point of
/// the wrong rank.
std::vector<Var> Lop(std::span<const Var> f, std::span<const Var> wrt,
                     std::span<const Var> eval_points, GradOptions options = {});
Var Lop(const Var& f, const Var& wrt, const Var& eval_point, GradOptions options = {});

/// True for variables of DisconnectedType, and for null handles.
bool is_disconnected_grad(const Var& v);
/// True for variables of NullType (undefined gradients).
bool is_null_grad(const Var& v);

}  // namespace rw
