// The report= JSON file and the print-stats line of mpt-auto-mixed-precision,
// on the two-layer perceptron of examples/mlp.mlir. The JSON printer sorts
// the keys of every object, so each op's keys read class, function, loc, op,
// precision, rule.

// RUN: rm -f %t.json %t.sm80.json
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision=report=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision="target=sm_80 report=%t.sm80.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.sm80.json --check-prefix=SM80

// print-stats: one line on stderr, whatever the LLVM build's statistics.
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision=print-stats -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS
// Without print-stats, nothing is printed.
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision -o /dev/null 2>&1 | count 0

// A report that cannot be written is an error at the module.
// RUN: not mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision=report=%t.json/no/such/dir/r.json -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNWRITABLE

// CHECK:      "low_type": "f16",
// CHECK-NEXT: "ops": [

// The first matmul, x @ w1.
// CHECK:      "class": "allow",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:[[MM1_LOC:[0-9]+:[0-9]+]]",
// CHECK-NEXT: "op": "mpt.matmul",
// CHECK-NEXT: "precision": "f16",
// CHECK-NEXT: "rule": "allow list"

// The bias add and relu between the two matmuls.
// CHECK:      "class": "infer",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:{{[0-9]+:[0-9]+}}",
// CHECK-NEXT: "op": "mpt.add",
// CHECK-NEXT: "precision": "f16",
// CHECK-NEXT: "rule": "between allow ops (downstream of mpt.matmul at {{.*}}mlp.mlir:[[MM1_LOC]])"
// CHECK:      "class": "clear",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:{{[0-9]+:[0-9]+}}",
// CHECK-NEXT: "op": "mpt.relu",
// CHECK-NEXT: "precision": "f16",
// CHECK-NEXT: "rule": "between allow ops (downstream of mpt.matmul at {{.*}}mlp.mlir:[[MM1_LOC]])"

// The second matmul, h @ w2.
// CHECK:      "class": "allow",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:{{[0-9]+:[0-9]+}}",
// CHECK-NEXT: "op": "mpt.matmul",
// CHECK-NEXT: "precision": "f16",
// CHECK-NEXT: "rule": "allow list"

// The output bias add is not between two allow ops.
// CHECK:      "class": "infer",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:{{[0-9]+:[0-9]+}}",
// CHECK-NEXT: "op": "mpt.add",
// CHECK-NEXT: "precision": "f32",
// CHECK-NEXT: "rule": "infer, not between allow ops; stays fp32"

// The loss.
// CHECK:      "class": "deny",
// CHECK-NEXT: "function": "mlp",
// CHECK-NEXT: "loc": "{{.*}}mlp.mlir:{{[0-9]+:[0-9]+}}",
// CHECK-NEXT: "op": "mpt.softmax_cross_entropy",
// CHECK-NEXT: "precision": "f32",
// CHECK-NEXT: "rule": "deny list"
// CHECK-NEXT: }
// CHECK-NEXT: ],

// No target given: an empty string.
// CHECK-NEXT: "target": "",
// CHECK-NEXT: "totals": {
// CHECK-NEXT:   "allow": 2,
// Four argument casts (x, w1, b1, w2) and one back to f32 (the second matmul).
// CHECK-NEXT:   "casts_inserted": 5,
// CHECK-NEXT:   "clear": 1,
// CHECK-NEXT:   "constants_converted": 0,
// 2*32*128*784 + 2*32*10*128.
// CHECK-NEXT:   "contraction_flops": 6504448,
// CHECK-NEXT:   "deny": 1,
// CHECK-NEXT:   "infer": 2,
// CHECK-NEXT:   "low_precision_contraction_flops": 6504448,
// CHECK-NEXT:   "low_precision_flops_percent": 100,
// CHECK-NEXT:   "no_policy": 0,
// CHECK-NEXT:   "ops_converted": 4
// CHECK-NEXT: }

// SM80:     "low_type": "bf16",
// SM80:     "op": "mpt.matmul",
// SM80-NEXT: "precision": "bf16",
// SM80-NEXT: "rule": "allow list"
// SM80:     "target": "sm_80",

// STATS: {{^}}mpt-auto-mixed-precision (f16): allow 2, deny 1, infer 2, clear 1, no policy 0; ops converted 4, casts inserted 5, constants converted 0; matmul/conv FLOPs in low precision: 100%{{$}}

// UNWRITABLE: error: mpt-auto-mixed-precision: cannot write report: cannot open output file '{{.*}}no/such/dir/r.json'
