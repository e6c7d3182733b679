// The rewrites of Scan nodes (PyTensor's scan/rewriting.py), and their
// registration in the standard database under the `scan` tag.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// Constant non-sequences move into the body; inputs the body does not read,
/// and outputs that are not fed back and nobody uses, are dropped
/// (`remove_constants_and_unused_inputs_scan`).
NodeRewriterPtr scan_remove_unused_rewriter();
/// An output not fed back that is an elementwise function of a state's new
/// value (and non-sequences), or `h_t @ W`, is computed after the loop over
/// the stacked states (`scan_push_out_scan_output`, PushOutScanOutput).
NodeRewriterPtr scan_push_out_scan_output_rewriter();
/// Inputs given twice become one, and outputs that compute the same inner
/// variable become one (`scan_merge_inouts`).
NodeRewriterPtr scan_merge_inouts_rewriter();
/// What the body computes from non-sequences and constants alone is computed
/// once, before the loop, and read as a non-sequence (`scan_push_out_non_seq`,
/// PushOutNonSeqScan).
NodeRewriterPtr scan_push_out_non_seq_rewriter();
/// Elementwise expressions of the step's sequence elements and the
/// non-sequences, and `x_t @ W` products, are computed for all steps at once
/// before the loop and read as sequences (`scan_push_out_seq`, PushOutSeqScan).
NodeRewriterPtr scan_push_out_seq_rewriter();
/// An accumulator `acc + a_t @ b_t` whose last value alone is read becomes
/// one matrix product after the loop, of the a_t side by side and the b_t
/// stacked (`scan_push_out_dot1`; PyTensor's PushOutDot1 and
/// scan_push_out_add): the weight gradients of back-propagation through time
/// become single products.
NodeRewriterPtr scan_push_out_dot1_rewriter();
/// Outputs read only at their last rows (`h[-1]`, `h[-k:]`) or not at all
/// keep only those rows (`scan_save_mem`, ScanSaveMem).
NodeRewriterPtr scan_save_mem_rewriter();
/// Two scans over the same steps (the same n_steps, or the same first
/// sequence), neither reading the other and neither updating shared
/// variables, become one (`scan_merge`, ScanMerge).
NodeRewriterPtr scan_merge_rewriter();

/// Registers them where PyTensor does: `scan_eqopt1` (position 0.05: the
/// constants and unused inputs, the push-outs of non-sequences, sequences and
/// outputs), `scan_eqopt2` (1.6: the
/// constants and unused inputs again, scan_merge, scan_merge_inouts,
/// scan_push_out_dot1) and
/// `scan_save_mem` (1.61), tagged `fast_run` and `scan`.
void register_scan_rewrites(RewriteDB& optdb);

}  // namespace rw
