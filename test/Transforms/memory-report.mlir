// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-build-train-step=optimizer=adam -canonicalize --mpt-memory-report=report=%t.fp32.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-build-train-step=optimizer=adam -canonicalize --mpt-auto-mixed-precision --mpt-memory-report=report=%t.mixed.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: FileCheck %s --check-prefix=JSON < %t.mixed.json
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-amp-pipeline="type=f16 optimizer=adam" --mpt-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALED
// A report that cannot be written is an error at the module.
// RUN: not mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-build-train-step -canonicalize --mpt-memory-report=report=%t.json/no/such/dir/r.json -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: mpt-memory-report: cannot write report: cannot open output file '{{.*}}no/such/dir/r.json'

// The MLP has 784*128 + 128 + 128*10 + 10 = 101770 parameters. Adam keeps
// two fp32 moments (8 bytes per parameter) and a step count (4 bytes).
// FP32-LABEL: mpt-memory-report: @train_step (101770 parameters)
// FP32: parameters 407080 407080
// FP32: low-precision copies 0 0
// FP32: gradients 407080 407080
// FP32: optimizer state 814164 814164
// FP32: bytes per parameter (parameters, copies, gradients, state): 16.0 (fp32: 16.0)

// Mixed precision: fp32 master (4) + f16 copy (2: 2 * (784*128 + 128 +
// 128*10 + 10) = 203540 bytes) + gradients as the backward produces them
// (mostly f16) + fp32 moments (8); activations kept for the backward pass
// are half: the relu's output (8192 bytes in f16; the relu gradient reads
// it, not the pre-activation, which is dead after the forward pass) and the
// logits (640 bytes in f16: the loss and its gradient read f16 logits).
// MIXED-LABEL: mpt-memory-report: @train_step (101770 parameters)
// MIXED: parameters 407080 407080
// MIXED: low-precision copies 203540 0
// MIXED: gradients 203816 407080
// MIXED: optimizer state 814164 814164
// MIXED: loss-scale state 0 0
// MIXED: activations kept for backward 8832 17664
// MIXED: bytes per parameter (parameters, copies, gradients, state): 16.0 (fp32: 16.0)

// JSON: "function": "train_step"
// JSON: "parameters": 101770
// JSON: "category": "low-precision copies"
// JSON-NEXT: "fp32_bytes": 0

// With dynamic loss scaling (mpt-amp-pipeline, f16): the scale state is a
// scale (f32) and two counters (i32), 12 bytes.
// SCALED-LABEL: mpt-memory-report: @train_step (101770 parameters)
// SCALED: optimizer state 814164 814164
// SCALED: loss-scale state 12 12
