//===- InitAll.h - register every dialect and pass mpt uses -----*- C++ -*-===//
//
// One place that lists the dialects and passes of an mpt tool, so that
// mpt-opt, the C API and embedders see the same set.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_INITALL_H
#define MPT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {

/// Adds the mpt dialect and the upstream dialects (with their interface
/// extensions) that mpt programs and their lowerings use.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the mpt passes and pipelines and the upstream passes mpt uses.
void registerAllPasses();

} // namespace mpt

#endif // MPT_INITALL_H
