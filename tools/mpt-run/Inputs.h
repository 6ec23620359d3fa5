//===- Inputs.h - argument values of mpt-run --------------------*- C++ -*-===//
//
// The values mpt-run passes to the entry function, read from .npy files or
// drawn at random according to the `mpt.role` of each argument, and the .npy
// files it writes for results.
//
// Random values (--seed=N; each argument has its own generator, seeded with
// N and the argument's index, so that changing one argument does not change
// the others):
//  - integer tensors: uniform integers in [0, C), C the class count of the
//    mpt.softmax_cross_entropy or the row count of the mpt.embedding that
//    uses them (looking through casts and shape ops), 10 otherwise;
//  - parameters of rank >= 2: normal(0, 1/sqrt(fan_in)), fan_in the product
//    of all dimensions but the output-channel one for mpt.conv2d filters, of
//    all dimensions but the last otherwise (a matmul weight K x N: K);
//  - parameters of rank 0 or 1: ones if they scale an mpt.layer_norm or
//    mpt.batch_norm, zeros otherwise (biases, shifts);
//  - optimizer_state: zeros; loss_scale_state: 65536 in the first element
//    (the initial loss scale), zeros elsewhere;
//  - everything else (input, label, gradient, no role): normal(0, 1).
// Normal values use Box-Muller on std::mt19937_64, so they are the same on
// every platform; f16 and bf16 values are rounded to nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_INPUTS_H
#define MPT_TOOLS_MPT_RUN_INPUTS_H

#include "Signature.h"
#include "Tensors.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mpt::run {

/// Reads argument `spec` from the .npy file at `path`. The file's dtype must
/// be the one getNpyDescr gives (float32 for bf16 arguments, rounded to
/// nearest even) and its shape the argument's; the error says which argument
/// and what was expected.
llvm::Expected<HostTensor> loadArgument(const TensorSpec &spec,
                                        llvm::StringRef path);

/// Reads the per-step values of the argument `spec` from a .npy file of shape
/// N x (the argument's shape): one tensor per row. Fails with a message naming
/// the argument when the dtype or shape is wrong.
llvm::Expected<llvm::SmallVector<HostTensor>>
loadStepArgument(const TensorSpec &spec, llvm::StringRef path);

/// How argument `spec` is drawn at random (see the file comment);
/// `distribution` receives a description such as "normal(0, 0.0357)".
Draw chooseDraw(const TensorSpec &spec, std::string &distribution);

/// Draws argument `spec` by `draw` (from chooseDraw) with `seed`.
HostTensor makeRandomArgument(const TensorSpec &spec, const Draw &draw,
                              uint64_t seed);

/// Writes `tensor` to the .npy file at `path` (bf16 as float32).
llvm::Error saveTensor(const HostTensor &tensor, llvm::StringRef path);

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_INPUTS_H
