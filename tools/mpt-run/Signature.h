//===- Signature.h - the entry function as mpt-run sees it ------*- C++ -*-===//
//
// What mpt-run needs to know about the entry function, read from the mpt
// program before it is lowered: the tensor type and `mpt.role` of every
// argument and result, the source names of the arguments, and hints from the
// uses of the arguments for drawing random values (class counts, fan-ins).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_SIGNATURE_H
#define MPT_TOOLS_MPT_RUN_SIGNATURE_H

#include "Tensors.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mpt::run {

/// The largest tensor rank mpt-run accepts.
constexpr int64_t kMaxRank = 6;

/// One argument or result of the entry function.
struct TensorSpec {
  bool isResult = false;
  unsigned index = 0;
  /// The SSA name of an argument in the source ("%x"), or "" if unknown.
  std::string name;
  ElementKind kind = ElementKind::f32;
  llvm::SmallVector<int64_t, 4> shape;
  std::optional<Role> role;

  /// Integer arguments used as class labels of mpt.softmax_cross_entropy or
  /// as indices of mpt.embedding: the number of classes or table rows.
  std::optional<int64_t> indexBound;
  /// Float arguments of rank >= 2: the fan-in of the layer that uses them,
  /// the product of all dimensions but the output-channel one for
  /// mpt.conv2d filters, of all dimensions but the last otherwise.
  int64_t fanIn = 1;
  /// Float arguments used as the scale of mpt.layer_norm/mpt.batch_norm.
  bool isNormScale = false;
  /// Arguments padded for Tensor Cores (`mpt.logical_shape`): the real
  /// shape, a leading corner of `shape`. Random values fill only that
  /// corner (the padding is zero), drawn as for an unpadded argument.
  llvm::SmallVector<int64_t, 4> logicalShape;
  /// Arguments with `mpt.initial_value`: its elements, in row-major order.
  std::vector<double> initialValue;

  /// "tensor<2x3xf32>".
  std::string getTypeString() const { return formatTensorType(kind, shape); }
  /// The role's name, or "" when there is none.
  llvm::StringRef getRoleName() const;
  /// "argument #1 (%w, parameter)", "result #0 (loss)", "argument #2".
  std::string describe() const;
};

/// The entry function: its name, arguments and results.
struct EntrySignature {
  std::string name;
  llvm::SmallVector<TensorSpec> arguments;
  llvm::SmallVector<TensorSpec> results;
};

/// The functions of `module` that have a body, in order.
llvm::SmallVector<mlir::func::FuncOp>
getDefinedFunctions(mlir::ModuleOp module);

/// The function `name` of `module`, or, when `name` is empty, its first
/// public function with a body. The error lists the functions there are.
llvm::Expected<mlir::func::FuncOp> findEntry(mlir::ModuleOp module,
                                             llvm::StringRef name);

/// Erases the functions of `module` that `entry` does not reach through
/// symbol references, so that the lowering only sees what the run needs.
void eraseUnreachableFunctions(mlir::ModuleOp module, mlir::func::FuncOp entry);

/// Reads the signature of `func`. Every argument and result must be a
/// statically shaped ranked tensor of rank at most kMaxRank with an element
/// type that ElementKind covers; the error names the first one that is not.
/// `sourceMgr`, the one the module was parsed from, gives argument names.
llvm::Expected<EntrySignature> getEntrySignature(mlir::func::FuncOp func,
                                                 llvm::SourceMgr &sourceMgr);

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_SIGNATURE_H
