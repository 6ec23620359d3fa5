//===- Pipelines.h - mpt lowering pipelines ---------------------*- C++ -*-===//
//
// Public builders of the pipelines, so that mpt-opt, mpt-run, embedders and
// the C API all run the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONVERSION_PIPELINES_H
#define MPT_CONVERSION_PIPELINES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

/// mpt-lower-to-cpu: convert-mpt-to-linalg, bufferization (tensor results
/// become caller-allocated out-parameters), loops, and the LLVM dialect.
/// Narrow floats round like IEEE storage: f16 through LLVM's per-op
/// promotion, bf16 and f8 through explicit f32 emulation.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm);

/// Registers `mpt-lower-to-cpu` as a pass pipeline.
void registerLowerToCPUPipeline();

} // namespace mpt

#endif // MPT_CONVERSION_PIPELINES_H
