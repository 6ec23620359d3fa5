//===- Passes.td - mpt transformation passes ---------------*- tablegen -*-===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_PASSES_TD
#define MPT_DIALECT_MPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AutoMixedPrecision : Pass<"mpt-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Decide low precision or fp32 for every op and insert the casts";
  let description = [{
    Classifies every op of every function as allow, deny, infer or clear
    (through `mpt::PrecisionPolicyOpInterface`, the `lists=` file and the
    per-op `mpt.precision` attribute), colors the graph in TensorFlow's order
    and rewrites it:

    1. allow ops (and ops forced `#mpt.precision<low>`) run in low precision;
    2. deny propagates forward through infer/clear ops that lie on a path to
       another infer or deny op;
    3. infer/clear ops between two allow ops run in low precision;
    4. allow propagates through clear ops, forward and backward, except
       backward into a clear op that would then cast more elements before
       it than its result holds (an embedding of an fp32 table, a slice of
       an argument, a maximum of two fp32 inputs): that op stays fp32 and
       its result is cast, the same values from a smaller cast;
    5. an existing `mpt.cast` to f32 whose users all run in low precision
       casts straight to the low type.

    Steps 3 and 4 follow only edges that would carry a low-precision value:
    from a result that changes type to an operand that does. The fp32 output
    of `tosa.matmul` or of a linalg contraction, and a linalg accumulator
    (`outs`), do not pull their neighbours into low precision, so a bias add
    after such an op stays fp32 and is rounded once, not twice.

    Values carried around loops (block arguments of `scf.for`/`scf.while`
    bodies, `scf.yield` operands) stay fp32. Casts are inserted once per
    (value, type): a cast of an argument at the top of the body, a cast of
    an op's result right before its first user in the op's block (so that
    a copy only the backward pass reads is made there, not held from the
    forward pass on); round trips fold
    (`x -> f16 -> f32` uses `x`), existing casts are reused, and constants are
    converted at compile time when every element fits the low type (else the
    constant stays fp32, with a remark, and acts as a deny op). Contractions
    in low precision accumulate in f32 (`acc(f32)`).

    Ops with no policy stay fp32 and are reported with a remark.

    Example: `mpt-opt --mpt-auto-mixed-precision="target=sm_80 report=r.json"`.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"\"",
           "Low-precision type: f16 or bf16 (default: from target, else f16)">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "GPU target (sm_60, sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, "
           "sm_100); picks the default type: f16 before sm_80, bf16 from it">,
    Option<"lists", "lists", "std::string", /*default=*/"\"\"",
           "JSON file of class overrides: {\"deny\": {\"add\": [...], "
           "\"remove\": [...]}, ...}">,
    Option<"keepIoTypes", "keep-io-types", "bool", /*default=*/"true",
           "Keep function signatures; cast at the boundary. When false, "
           "arguments used only in low precision and results produced in low "
           "precision take the low type">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report of every decision to this file">,
    Option<"printStats", "print-stats", "bool", /*default=*/"false",
           "Print the pass statistics to stderr (for LLVM builds whose "
           "-mlir-pass-statistics are disabled, such as Debian's)">
  ];
  let statistics = [
    Statistic<"numAllow", "allow-ops", "Ops of class allow">,
    Statistic<"numDeny", "deny-ops", "Ops of class deny">,
    Statistic<"numInfer", "infer-ops", "Ops of class infer">,
    Statistic<"numClear", "clear-ops", "Ops of class clear">,
    Statistic<"numNoPolicy", "no-policy-ops", "Ops without a precision policy (kept fp32)">,
    Statistic<"numConverted", "ops-converted", "Ops moved to low precision">,
    Statistic<"numCasts", "casts-inserted", "Casts inserted">,
    Statistic<"numConstantsConverted", "constants-converted",
              "Constants converted at compile time">,
    Statistic<"lowFlopsPercent", "low-precision-flops-percent",
              "Percent of matmul/conv FLOPs in low precision">
  ];
  let dependentDialects = ["::mpt::MPTDialect"];
}

def PadForTensorCores : Pass<"mpt-pad-for-tensor-cores", "::mlir::ModuleOp"> {
  let summary = "Pad low-precision contractions to Tensor Core multiples";
  let description = [{
    Pads M, N and K of low-precision (f16, bf16, f8) `mpt.matmul` and
    `mpt.batch_matmul`, and the input and output channels of `mpt.conv2d`,
    with zeros up to a multiple (8 for 16-bit types, 16 for 8-bit types), and
    slices the result back, so the program computes the same values.

    Pads and slices are then moved and cancelled across zero-preserving
    elementwise and data-movement ops (relu, add of zero-padded operands,
    casts, ...): a slice followed by the pad that restores it disappears when
    the sliced-off region is known to be zero, so a chain of layers is padded
    once. A softmax cross-entropy over a padded class dimension sees the
    padded logits masked to -inf, so its loss and gradients equal the
    unpadded ones.

    With `pad-parameters`, a parameter (function argument with
    `#mpt.role<parameter>`) that a contraction pads is padded in the
    signature instead, once: the argument gets the padded shape and an
    `mpt.logical_shape` attribute with its real shape. Run it on the forward
    graph before `mpt-build-train-step`: the step then carries the padded
    parameter, whose padded rows and columns start at zero (mpt-run fills
    only the real corner) and stay zero under training, since their
    gradients are zero.

    A contraction whose padding would add more than `max-overhead` of its
    FLOPs is left as it is, with a remark. Only low-precision contractions are
    padded: fp32 runs on CUDA cores (or as TF32) where alignment matters less.
  }];
  let options = [
    Option<"multiple", "multiple", "int64_t", /*default=*/"0",
           "Pad to this multiple (0: 8 for f16/bf16, 16 for 8-bit types)">,
    Option<"minSize", "min-size", "int64_t", /*default=*/"1",
           "Do not pad dimensions smaller than this">,
    Option<"padParameters", "pad-parameters", "bool", /*default=*/"false",
           "Pad parameters in the signature instead of at every step">,
    Option<"maxOverhead", "max-overhead", "double", /*default=*/"0.25",
           "Skip a contraction whose padding adds more than this fraction of "
           "its FLOPs">,
    Option<"printStats", "print-stats", "bool", /*default=*/"false",
           "Print the statistics to stderr">
  ];
  let statistics = [
    Statistic<"numPadded", "ops-padded", "Contractions padded">,
    Statistic<"numSkipped", "ops-skipped", "Contractions left unpadded (overhead)">,
    Statistic<"extraFlopsPercent", "extra-flops-percent",
              "Extra FLOPs of the padded contractions, in percent">,
    Statistic<"extraBytes", "extra-bytes", "Bytes added by padding tensors">
  ];
  let dependentDialects = ["::mpt::MPTDialect"];
}

def Autodiff : Pass<"mpt-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation of a loss function";
  let description = [{
    For every function with a scalar loss (the result with
    `#mpt.role<loss>`, or its only float scalar result) and arguments with
    `#mpt.role<parameter>`, builds `@<name>_grad` returning the loss and one
    gradient per parameter (`#mpt.role<gradient>`), or, with `extend`,
    appends the gradients to the function's own results.

    Gradients are built from mpt ops, with backward ops of the dialect where
    no composition is as good (`relu_grad`, `gelu_grad`, `softmax_grad`,
    `log_softmax_grad`, `softmax_cross_entropy_grad`, `layer_norm_grad`,
    `batch_norm_grad`, the
    convolution and pooling gradients, `embedding_grad`); broadcast operands get
    their gradient summed back to their shape; values used several times sum
    their gradients; integer values get none. An op without a rule is an
    error naming the op.

    The backward ops come in the reverse order of the forward ones. Of a
    matmul's (or a convolution's) two gradients, the one that reads the
    first operand (the weight gradient of `x @ w`) comes first when that
    operand is an activation nothing else reads and the other operand is
    not: the activation is then dead before the input gradient, as large
    as it, is made, which lowers the step's peak memory (the GELU's output
    in a transformer block's feed-forward backward). Otherwise the input
    gradient comes first. Likewise `relu_grad` reads the relu's output
    rather than its input (both are positive at the same elements) when
    the relu is its input's only reader: the pre-activation is then dead
    after the forward pass, and the output is what the next layer's weight
    gradient keeps anyway.
  }];
  let options = [
    Option<"extend", "extend", "bool", /*default=*/"false",
           "Add the gradients to the function instead of a new @<name>_grad">
  ];
  let dependentDialects = ["::mpt::MPTDialect"];
}

def BuildTrainStep : Pass<"mpt-build-train-step", "::mlir::ModuleOp"> {
  let summary = "Build @train_step: loss, gradients and an optimizer update";
  let description = [{
    From a forward function with a scalar loss and parameters, builds
    `@train_step(params, optimizer state, inputs, labels) -> (loss, new
    params, new optimizer state)` with roles on every argument and result.

    - `sgd`: `p - lr * (g + weight_decay * p)` (`mpt.sgd_update`);
    - `momentum`: `v = momentum * v + g'`, `p - lr * v` (PyTorch's form,
      `mpt.momentum_update`), one velocity per parameter as optimizer state;
    - `adam`: first and second moments per parameter and a step count, with
      bias correction (`mpt.adam_update`).

    With `clip-norm > 0` the gradients are scaled by
    `min(1, clip-norm / (||g|| + 1e-6))` (global norm over all gradients,
    `mpt.clip_by_global_norm`) before the update. The backward pass starts
    at an `mpt.backward_seed` of the loss, which `mpt-loss-scaling` replaces
    with the loss scale. With `return-gradients`, the gradients the update
    uses are results too (`#mpt.role<gradient>`, after the optimizer state),
    for logging and for measuring underflow.
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, momentum or adam">,
    Option<"lr", "lr", "double", /*default=*/"0.01", "Learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "Momentum (optimizer=momentum)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "Adam epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "L2 weight decay added to the gradient">,
    Option<"clipNorm", "clip-norm", "double", /*default=*/"0.0",
           "Clip the global gradient norm to this value (0: off)">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The forward function (default: the only one with a loss)">,
    Option<"stepName", "name", "std::string", /*default=*/"\"train_step\"",
           "Name of the function to build">,
    Option<"returnGradients", "return-gradients", "bool", /*default=*/"false",
           "Also return the gradients the update uses (after clipping; after "
           "mpt-loss-scaling, unscaled), with #mpt.role<gradient>">,
    Option<"recompute", "recompute", "bool", /*default=*/"true",
           "Recompute activations in the backward pass instead of keeping "
           "them (mpt-recompute-activations)">
  ];
  let dependentDialects = ["::mpt::MPTDialect", "::mlir::func::FuncDialect"];
}

def RecomputeActivations : Pass<"mpt-recompute-activations",
                                 "::mlir::ModuleOp"> {
  let summary = "Recompute activations in the backward pass instead of keeping them";
  let description = [{
    In a training step (a function with an `mpt.backward_seed`: what
    `mpt-build-train-step` builds, before `mpt-loss-scaling` replaces the
    seed), an activation of the forward pass (`mpt.gelu`, `mpt.tanh`,
    `mpt.sigmoid`, `mpt.relu`) whose result the backward pass reads, and
    whose input the backward pass reads anyway (the activation's gradient
    does), is computed again right before its first reader in the backward
    pass. The forward pass's result then dies after its last forward reader
    instead of living through the rest of the forward pass, as in
    Megatron's selective recomputation. The input is kept either way, so
    this costs one elementwise op and saves the activation's buffer at the
    peak of a step (a transformer's FFN: the GELU's output, as large as its
    input). An activation that only the backward pass reads is moved there
    instead.

    A softmax whose result the backward pass reads (attention's
    probabilities, which `mpt.softmax_grad` reads) is computed again with
    the ops that make its input, when those start from values the backward
    pass keeps: the batch matmul of the queries and keys (whose gradients
    read both), a scale or a mask. The chain may hold reshapes,
    transposes, broadcasts, casts, elementwise `add`/`sub`/`mul`/`div` and
    at most one `mpt.batch_matmul`, eight ops in all. Dead ops are erased
    first.

    Each copy is marked `mpt.recomputed`, which keeps CSE from merging it
    back into the original (`convert-mpt-to-linalg` marks every op of its
    lowering). Its values are the original's, bit for bit.
    `mpt-build-train-step` runs this with `recompute` (on by default).
  }];
}

def MasterWeights : Pass<"mpt-master-weights", "::mlir::ModuleOp"> {
  let summary = "fp32 master weights with one low-precision working copy per step";
  let description = [{
    Runs after `mpt-auto-mixed-precision` on a training step. Checks that the
    parameters and the optimizer state are fp32 (the master copy) and that the
    updated parameters and state are computed in fp32; makes the working copy
    of each parameter one cast per low type, placed at the start of the step
    and shared by every use (forward and backward).

    With `keep-low-copy`, the working copy is part of the state instead: the
    step takes it as an argument (`#mpt.role<parameter_copy>`) and returns
    the cast of the updated parameter for the next step. This trades memory
    (2 bytes per parameter kept between steps) for moving the cast off the
    critical path at the start of the step, and is the layout to use when the
    low-precision copy is what other devices read; it does not save
    arithmetic (one cast per parameter per step either way).

    A working copy of at least `recompute-bytes` bytes (a cast of a
    parameter or of an input to a narrower type: a weight, the batch) does
    not live through the step. In a step that still has its
    `mpt.backward_seed` (the pass runs before `mpt-loss-scaling` in
    `mpt-amp-pipeline`), it is made right before its first reader, and,
    where the backward pass reads it too (the gradient of a layer's input
    reads the weight, that of the weight reads the input), made again, from
    the fp32 argument, right before the backward pass's first reader
    (marked `mpt.recomputed`). Between its last forward and first backward
    reader, the copy takes no memory: the weight copies of a deep network
    are not all alive at the start of the backward pass, where its memory
    peaks. It costs one cast per copy per step more (6 bytes of traffic per
    element for f32 to f16, and a kernel launch on the GPU), and takes the
    copy out of the one kernel that makes the small copies at the start of
    the step; hence the threshold (default 256 KiB). `-1` keeps every copy at
    the start of the step; `0` treats them all this way. A copy that only an
    `mpt.pad` reads (`mpt-pad-for-tensor-cores` ran before: the zero-padded
    copy) is made with its pad, and both are made again.
  }];
  let options = [
    Option<"keepLowCopy", "keep-low-copy", "bool", /*default=*/"false",
           "Carry the low-precision copy in the training state">,
    Option<"recomputeBytes", "recompute-bytes", "int64_t",
           /*default=*/"262144",
           "Working copies of at least this many bytes are made before "
           "their first reader and again for the backward pass (-1: never)">
  ];
}

def MemoryReport : Pass<"mpt-memory-report", "::mlir::ModuleOp"> {
  let summary = "Report the bytes of parameters, gradients, optimizer state and activations";
  let description = [{
    For every training function (arguments with roles), reports the bytes of
    the tensors a training step keeps, by category, in the precision the IR
    has and as they would be in fp32:

    - parameters (`#mpt.role<parameter>` arguments: the fp32 master copy);
    - low-precision working copies (casts of parameters to a narrower type);
    - gradients (one per parameter: the value the backward pass produces,
      before any cast to the update's precision);
    - optimizer state (`#mpt.role<optimizer_state>` arguments);
    - loss-scale state (`#mpt.role<loss_scale_state>` arguments);
    - activations kept for the backward pass (results of ops the loss
      depends on that ops of the backward pass read).

    The table (per category, totals and bytes per parameter) goes to stderr;
    `report=` writes it, with one entry per tensor, as JSON.
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file">
  ];
}

def LossScaling : Pass<"mpt-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Loss scaling: scale, unscale and check, skip, update the scale";
  let description = [{
    Rewrites every training step built by `mpt-build-train-step` (a function
    whose backward pass starts at an `mpt.backward_seed`) so that small
    gradients survive half precision:

    - **scale**: the backward pass is seeded with the loss scale `S` instead
      of one; the loss the step returns is unchanged;
    - **unscale and check**: the gradients reaching the optimizer go through
      one `mpt.unscale_and_check` (x 1/S in f32, `found_inf` when any element
      is inf or NaN); an `mpt.clip_by_global_norm` of the step is fused into
      it, so clipping sees unscaled gradients and a non-finite norm counts as
      an overflow. It comes after the last gradient is made; an update
      before it (one whose gradient is ready while another parameter's,
      say a padded one's slice, is still being made) moves after it, and
      one that cannot (its result feeds a later gradient) is an error;
    - **skip**: every returned parameter, optimizer state and parameter copy
      is `mpt.select %found_inf, old, new`: an overflowing step leaves them
      unchanged, bit for bit (Adam's step count included);
    - **update** (`dynamic`): the scale state (scale `f32`, growth counter
      and hysteresis counter `i32`, `#mpt.role<loss_scale_state>`, with
      `mpt.initial_value`) is appended to the arguments and results and
      advanced by `mpt.update_scale`.

    Modes: `dynamic` (the state machine of PyTorch's GradScaler, with
    Megatron-LM's hysteresis), `static` (a constant scale `init-scale`; an
    overflowing step is still skipped), `adaptive` (layer-wise scaling after
    Zhao et al. 2019: before every low-precision contraction of the backward
    pass, `mpt.layer_scale` computes a power-of-two factor from the
    statistics of the gradient and the other operand; every gradient carries
    its own accumulated scale, merged to the smaller one where gradients are
    added, and is unscaled by it), `none` (no scaling), and `auto` (the
    default): `dynamic` when the step has f16 values, otherwise `none`, with
    a remark for bf16, whose exponent range is fp32's.

    Where the seed reaches a cast to a narrower float unchanged (directly or
    through reshape, broadcast, transpose: the gradient of a plain sum), that
    cast holds the scale itself. `dynamic` then keeps the scale at most the
    largest power of two the type holds (32768 for f16; `init-scale` and
    `max-scale` are lowered, with a remark), and `static` refuses a scale the
    type does not hold exactly.

    Run it last, after `mpt-auto-mixed-precision` and `mpt-master-weights`.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"auto\"",
           "auto, dynamic, static, adaptive or none">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "The first scale (dynamic) or the scale (static)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Scale multiplier after growth-interval good steps (> 1)">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Scale multiplier on overflow, in (0, 1)">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "Consecutive good steps before the scale grows">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "The scale backs off at this many overflows since it last grew "
           "(1: at every overflow, as GradScaler)">,
    Option<"minScale", "min-scale", "double", /*default=*/"1.0",
           "Lower bound of the scale">,
    Option<"maxScale", "max-scale", "double", /*default=*/"16777216.0",
           "Upper bound of the scale (adaptive: of each accumulated scale)">
  ];
  let dependentDialects = ["::mpt::MPTDialect"];
}

#endif // MPT_DIALECT_MPT_TRANSFORMS_PASSES_TD
