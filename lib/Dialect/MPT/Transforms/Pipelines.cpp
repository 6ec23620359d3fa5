//===- Pipelines.cpp - mpt-amp-pipeline -----------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Pipelines.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mpt::buildAMPPipeline(OpPassManager &pm,
                           const AMPPipelineOptions &options) {
  // pad-parameters: the forward graph's precision first, then its padding,
  // which gives the parameters that low-precision contractions pad their
  // padded shape; the step is built from that graph and carries them.
  if (options.padParameters) {
    AutoMixedPrecisionOptions forward;
    forward.target = options.target;
    forward.type = options.type;
    forward.lists = options.lists;
    pm.addPass(createAutoMixedPrecision(forward));
    PadForTensorCoresOptions pad;
    pad.maxOverhead = options.maxOverhead;
    pad.padParameters = true;
    pm.addPass(createPadForTensorCores(pad));
  }
  BuildTrainStepOptions step;
  step.optimizer = options.optimizer;
  step.lr = options.lr;
  step.momentum = options.momentum;
  step.beta1 = options.beta1;
  step.beta2 = options.beta2;
  step.eps = options.eps;
  step.weightDecay = options.weightDecay;
  step.function = options.function;
  step.stepName = options.stepName;
  step.clipNorm = options.clipNorm;
  step.returnGradients = options.returnGradients;
  step.recompute = options.recompute;
  pm.addPass(createBuildTrainStep(step));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  AutoMixedPrecisionOptions amp;
  amp.target = options.target;
  amp.type = options.type;
  amp.lists = options.lists;
  amp.report = options.report;
  amp.printStats = options.printStats;
  pm.addPass(createAutoMixedPrecision(amp));
  if (options.pad || options.padParameters) {
    PadForTensorCoresOptions pad;
    pad.maxOverhead = options.maxOverhead;
    pad.printStats = options.printStats;
    pm.addPass(createPadForTensorCores(pad));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  MasterWeightsOptions master;
  master.keepLowCopy = options.keepLowCopy;
  master.recomputeBytes = options.recompute ? options.recomputeBytes : -1;
  pm.addPass(createMasterWeights(master));
  LossScalingOptions scaling;
  scaling.mode = options.lossScaling;
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.hysteresis = options.hysteresis;
  scaling.minScale = options.minScale;
  scaling.maxScale = options.maxScale;
  pm.addPass(createLossScaling(scaling));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mpt::registerAMPPipeline() {
  PassPipelineRegistration<AMPPipelineOptions>(
      "mpt-amp-pipeline",
      "Build a mixed-precision training step: train step, "
      "auto-mixed-precision, Tensor Core padding, master weights, loss "
      "scaling, cleanups",
      buildAMPPipeline);
}
