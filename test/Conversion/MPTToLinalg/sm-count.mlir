// mpt.sm_count is host code of a GPU program: convert-mpt-to-linalg keeps it
// with gpu=1 (as mpt-lower-to-nvvm and mpt-emulate-gpu run it), for
// mpt-lower-sm-count, and reports it in a CPU program, alone and in
// mpt-lower-to-cpu.
// RUN: mpt-opt %s --convert-mpt-to-linalg=gpu=1 | FileCheck %s
// RUN: mpt-opt %s --convert-mpt-to-linalg -verify-diagnostics -o /dev/null
// RUN: mpt-opt %s --mpt-lower-to-cpu -verify-diagnostics -o /dev/null

// CHECK-LABEL: func.func @grid
// CHECK-NEXT: %[[N:.*]] = mpt.sm_count cluster 2
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: return %[[N]], %[[S]]
func.func @grid(%x: tensor<4xf32>) -> (index, tensor<4xf32>) {
  // expected-error @+1 {{convert-mpt-to-linalg: mpt.sm_count asks for a GPU's multiprocessor count, and this is a CPU program; lower it with mpt-lower-to-nvvm or mpt-emulate-gpu (which pass gpu=1)}}
  %n = mpt.sm_count cluster 2
  %s = mpt.exp %x : tensor<4xf32>
  return %n, %s : index, tensor<4xf32>
}
