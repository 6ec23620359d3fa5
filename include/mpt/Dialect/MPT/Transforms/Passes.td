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
    4. allow propagates through clear ops, forward and backward;
    5. an existing `mpt.cast` to f32 whose users all run in low precision
       casts straight to the low type.

    Values carried around loops (block arguments of `scf.for`/`scf.while`
    bodies, `scf.yield` operands) stay fp32. Casts are inserted once per
    (value, type), right after the value's definition; round trips fold
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

#endif // MPT_DIALECT_MPT_TRANSFORMS_PASSES_TD
