// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-auto-mixed-precision="report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// A clear op that selects part of an fp32 input stays fp32 when only its
// consumer pulls it into low precision: the cast converts its result, not
// its larger input (the values are the same, the cast is smaller).

// An embedding of an fp32 table: the 64 rows looked up are cast, not the
// 32000-row table.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<32000x64xf32>
// CHECK-NOT: mpt.cast %[[T]]
// CHECK: %[[E:.*]] = mpt.embedding %[[T]], %{{.*}} : (tensor<32000x64xf32>, tensor<16xi64>) -> tensor<16x64xf32>
// CHECK: %[[EH:.*]] = mpt.cast %[[E]] : tensor<16x64xf32> to tensor<16x64xf16>
// CHECK: mpt.matmul %[[EH]], %{{.*}} acc(f32) : (tensor<16x64xf16>, tensor<64x32xf16>)
// REPORT: "op": "mpt.embedding"
// REPORT-NEXT: "precision": "f32"
// REPORT-NEXT: "rule": "clear, selects part of an fp32 input: the cast for mpt.matmul
func.func @embedding(%t: tensor<32000x64xf32>, %ids: tensor<16xi64>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %e = mpt.embedding %t, %ids : (tensor<32000x64xf32>, tensor<16xi64>) -> tensor<16x64xf32>
  %y = mpt.matmul %e, %w : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A slice of an argument, and the maximum of two arguments (two casts
// before it, one after).
// CHECK-LABEL: func.func @slice_and_max(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<64x64xf32>, %[[A:[a-z0-9]+]]: tensor<16x64xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf32>
// CHECK-NOT: mpt.cast %[[X]]
// CHECK-NOT: mpt.cast %[[A]]
// CHECK-NOT: mpt.cast %[[B]]
// CHECK-DAG: %[[S:.*]] = mpt.slice %[[X]] {{.*}} : tensor<64x64xf32> -> tensor<16x64xf32>
// CHECK-DAG: %[[SH:.*]] = mpt.cast %[[S]] : tensor<16x64xf32> to tensor<16x64xf16>
// CHECK-DAG: %[[M:.*]] = mpt.max %[[A]], %[[B]] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-DAG: %[[MH:.*]] = mpt.cast %[[M]] : tensor<16x64xf32> to tensor<16x64xf16>
// CHECK: mpt.matmul %[[SH]], %[[MH]] transpose_b acc(f32)
func.func @slice_and_max(%x: tensor<64x64xf32>, %a: tensor<16x64xf32>, %b: tensor<16x64xf32>) -> tensor<16x16xf32> {
  %s = mpt.slice %x offsets = [16, 0] sizes = [16, 64] : tensor<64x64xf32> -> tensor<16x64xf32>
  %m = mpt.max %a, %b : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = mpt.matmul %s, %m transpose_b : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// The same ops follow their input into low precision where a low op makes
// it (no cast before them), and an op that does not shrink its input (a
// transpose, a relu) still takes the cast before it.
// CHECK-LABEL: func.func @follow(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<64x64xf32>, %[[W:[a-z0-9]+]]: tensor<64x64xf32>, %[[V:[a-z0-9]+]]: tensor<64x32xf32>
// CHECK-DAG: %[[XH:.*]] = mpt.cast %[[X]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-DAG: %[[WH:.*]] = mpt.cast %[[W]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-DAG: %[[VH:.*]] = mpt.cast %[[V]] : tensor<64x32xf32> to tensor<64x32xf16>
// CHECK: %[[P:.*]] = mpt.matmul %[[XH]], %[[WH]] acc(f32) : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
// CHECK: %[[S:.*]] = mpt.slice %[[P]] {{.*}} : tensor<64x64xf16> -> tensor<16x64xf16>
// CHECK: %[[VT:.*]] = mpt.transpose %[[VH]] {{.*}} -> tensor<32x64xf16>
// CHECK: %[[R:.*]] = mpt.relu %[[VT]] : tensor<32x64xf16>
// CHECK: mpt.matmul %[[S]], %[[R]] transpose_b acc(f32) : (tensor<16x64xf16>, tensor<32x64xf16>)
func.func @follow(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %p = mpt.matmul %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = mpt.slice %p offsets = [0, 0] sizes = [16, 64] : tensor<64x64xf32> -> tensor<16x64xf32>
  %vt = mpt.transpose %v perm = [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %r = mpt.relu %vt : tensor<32x64xf32>
  %y = mpt.matmul %s, %r transpose_b : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
