//===- Pipelines.h - the mixed-precision training pipeline ------*- C++ -*-===//
//
// mpt-amp-pipeline: from a forward graph with a loss to a mixed-precision
// training step. Built by a public function so that mpt-opt, the C API and
// embedders run the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_PIPELINES_H
#define MPT_DIALECT_MPT_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

struct AMPPipelineOptions
    : public mlir::PassPipelineOptions<AMPPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU target (sm_70 ... sm_100); "
                                            "picks the low type"),
                             llvm::cl::init("")};
  Option<std::string> type{*this, "type",
                           llvm::cl::desc("Low-precision type: f16 or bf16"),
                           llvm::cl::init("")};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd, momentum or adam"),
                                llvm::cl::init("sgd")};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(0.01)};
  Option<double> momentum{*this, "momentum",
                          llvm::cl::desc("Momentum (optimizer=momentum)"),
                          llvm::cl::init(0.9)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Adam beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("Adam epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> weightDecay{*this, "weight-decay",
                             llvm::cl::desc("L2 weight decay added to the "
                                            "gradient"),
                             llvm::cl::init(0.0)};
  Option<std::string> function{*this, "function",
                               llvm::cl::desc("The forward function (default: "
                                              "the only one with a loss)"),
                               llvm::cl::init("")};
  Option<std::string> stepName{*this, "name",
                               llvm::cl::desc("Name of the training step"),
                               llvm::cl::init("train_step")};
  Option<double> clipNorm{*this, "clip-norm",
                          llvm::cl::desc("Global gradient norm clipping "
                                         "(0: off)"),
                          llvm::cl::init(0.0)};
  Option<std::string> lists{*this, "lists",
                            llvm::cl::desc("Class list overrides (JSON)"),
                            llvm::cl::init("")};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("AMP decision report (JSON)"),
                             llvm::cl::init("")};
  Option<bool> pad{*this, "pad",
                   llvm::cl::desc("Pad low-precision contractions for "
                                  "Tensor Cores"),
                   llvm::cl::init(true)};
  Option<bool> padParameters{
      *this, "pad-parameters",
      llvm::cl::desc("Pad the parameters that low-precision contractions pad "
                     "in the signature, once, instead of at every step "
                     "(implies pad; precision and padding run on the forward "
                     "graph first)"),
      llvm::cl::init(false)};
  Option<bool> printStats{*this, "print-stats",
                          llvm::cl::desc("Print the statistics of the "
                                         "precision and padding passes"),
                          llvm::cl::init(false)};
  Option<double> maxOverhead{*this, "max-overhead",
                             llvm::cl::desc("Padding overhead limit"),
                             llvm::cl::init(0.25)};
  Option<bool> returnGradients{
      *this, "return-gradients",
      llvm::cl::desc("Also return the (unscaled) gradients of the update"),
      llvm::cl::init(false)};
  Option<bool> recompute{
      *this, "recompute",
      llvm::cl::desc("Recompute activations in the backward pass instead of "
                     "keeping them (mpt-recompute-activations)"),
      llvm::cl::init(true)};
  Option<int64_t> recomputeBytes{
      *this, "recompute-bytes",
      llvm::cl::desc("With recompute, working copies (f16/bf16 casts of "
                     "weights and inputs) of at least this many bytes are "
                     "made again for the backward pass (mpt-master-weights)"),
      llvm::cl::init(262144)};
  Option<bool> keepLowCopy{*this, "keep-low-copy",
                           llvm::cl::desc("Carry the low-precision parameter "
                                          "copy in the training state"),
                           llvm::cl::init(false)};
  Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling mode: auto (dynamic for f16, none for "
                     "bf16), dynamic, static, adaptive or none"),
      llvm::cl::init("auto")};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("First (or static) loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("Loss scale growth factor"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("Loss scale backoff factor"),
                               llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Good steps before the loss scale grows"),
      llvm::cl::init(2000)};
  Option<int64_t> hysteresis{*this, "hysteresis",
                             llvm::cl::desc("Overflows before backing off"),
                             llvm::cl::init(1)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lower bound of the loss scale"),
                          llvm::cl::init(1.0)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Upper bound of the loss scale"),
                          llvm::cl::init(16777216.0)};
};

/// Appends the mixed-precision training pipeline: mpt-build-train-step (which
/// differentiates the forward function), mpt-auto-mixed-precision,
/// mpt-pad-for-tensor-cores (unless pad=false), mpt-master-weights and
/// mpt-loss-scaling, with canonicalization (which folds cast round trips) and
/// CSE in between. Embedders and the Python package build the same pipeline
/// through this function.
void buildAMPPipeline(mlir::OpPassManager &pm,
                      const AMPPipelineOptions &options);

/// Registers `mpt-amp-pipeline`.
void registerAMPPipeline();

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_PIPELINES_H
