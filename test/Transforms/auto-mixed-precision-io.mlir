// keep-io-types of mpt-auto-mixed-precision. true (the default) keeps every
// signature and casts at the boundary; false gives the low type to arguments
// used only by low-precision ops and to results produced in low precision,
// and is an error for a function that is called.

// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/layer.mlir --mpt-auto-mixed-precision | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %t/layer.mlir --mpt-auto-mixed-precision=keep-io-types=true | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %t/layer.mlir --mpt-auto-mixed-precision=keep-io-types=false | FileCheck %s --check-prefix=NOKEEP
// RUN: mpt-opt %t/layer.mlir --mpt-auto-mixed-precision="keep-io-types=false type=bf16" | FileCheck %s --check-prefix=NOKEEP-BF16
// RUN: mpt-opt %t/called.mlir --mpt-auto-mixed-precision=keep-io-types=false -verify-diagnostics
// RUN: mpt-opt %t/branches.mlir --mpt-auto-mixed-precision=keep-io-types=false | FileCheck %s --check-prefix=BRANCHES

//--- layer.mlir

// %x and %w feed only the matmul; %b feeds an fp32 add and the deny exp; the
// matmul's result is returned and also feeds the fp32 add.
// KEEP-LABEL: func.func @layer(
// KEEP-SAME:      %[[X:[a-z0-9]+]]: tensor<16x16xf32>, %[[W:[a-z0-9]+]]: tensor<16x16xf32>, %[[B:[a-z0-9]+]]: tensor<16x16xf32>)
// KEEP-SAME:      -> (tensor<16x16xf32>, tensor<16x16xf32>)
// KEEP-DAG:     %[[X16:.*]] = mpt.cast %[[X]] : tensor<16x16xf32> to tensor<16x16xf16>
// KEEP-DAG:     %[[W16:.*]] = mpt.cast %[[W]] : tensor<16x16xf32> to tensor<16x16xf16>
// KEEP:         %[[MM:.*]] = mpt.matmul %[[X16]], %[[W16]] acc(f32) : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// KEEP-NEXT:    %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<16x16xf16> to tensor<16x16xf32>
// KEEP-NEXT:    %[[ADD:.*]] = mpt.add %[[MM32]], %[[B]] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// KEEP-NEXT:    %[[EXP:.*]] = mpt.exp %[[B]] : tensor<16x16xf32>
// KEEP-NEXT:    return %[[MM32]], %[[EXP]] : tensor<16x16xf32>, tensor<16x16xf32>

// NOKEEP-LABEL: func.func @layer(
// NOKEEP-SAME:      %[[X:[a-z0-9]+]]: tensor<16x16xf16>, %[[W:[a-z0-9]+]]: tensor<16x16xf16>, %[[B:[a-z0-9]+]]: tensor<16x16xf32>)
// NOKEEP-SAME:      -> (tensor<16x16xf16>, tensor<16x16xf32>)
// NOKEEP-NEXT:    %[[MM:.*]] = mpt.matmul %[[X]], %[[W]] acc(f32) : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// NOKEEP-NEXT:    %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<16x16xf16> to tensor<16x16xf32>
// NOKEEP-NEXT:    %[[ADD:.*]] = mpt.add %[[MM32]], %[[B]] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// NOKEEP-NEXT:    %[[EXP:.*]] = mpt.exp %[[B]] : tensor<16x16xf32>
// NOKEEP-NEXT:    return %[[MM]], %[[EXP]] : tensor<16x16xf16>, tensor<16x16xf32>

// NOKEEP-BF16-LABEL: func.func @layer(
// NOKEEP-BF16-SAME:      tensor<16x16xbf16>, %{{.*}}: tensor<16x16xbf16>, %{{.*}}: tensor<16x16xf32>)
// NOKEEP-BF16-SAME:      -> (tensor<16x16xbf16>, tensor<16x16xf32>)
func.func @layer(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %0 = mpt.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = mpt.add %0, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = mpt.exp %b : tensor<16x16xf32>
  return %0, %2 : tensor<16x16xf32>, tensor<16x16xf32>
}

// An argument that is also returned as it is keeps its type, even though
// its only other user is a matmul.
// KEEP-LABEL: func.func @passthrough(
// KEEP-SAME:      %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
// NOKEEP-LABEL: func.func @passthrough(
// NOKEEP-SAME:      %[[X:[a-z0-9]+]]: tensor<8x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf16>) -> (tensor<8x8xf16>, tensor<8x8xf32>)
// NOKEEP-NEXT:    %[[X16:.*]] = mpt.cast %[[X]] : tensor<8x8xf32> to tensor<8x8xf16>
// NOKEEP-NEXT:    %[[MM:.*]] = mpt.matmul %[[X16]], %[[W]] acc(f32)
// NOKEEP-NEXT:    return %[[MM]], %[[X]] : tensor<8x8xf16>, tensor<8x8xf32>
func.func @passthrough(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = mpt.matmul %x, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %x : tensor<8x8xf32>, tensor<8x8xf32>
}

//--- called.mlir

// expected-error @+1 {{mpt-auto-mixed-precision: keep-io-types=false cannot change the signature of @callee: it is called in the module}}
func.func @callee(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

func.func @caller(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = func.call @callee(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

//--- branches.mlir

// With several returns the results keep their types (each return casts
// back); arguments still take the low type.
// BRANCHES-LABEL: func.func @branches(
// BRANCHES-SAME: %{{.*}}: tensor<8x8xf16>, %{{.*}}: tensor<8x8xf16>, %{{.*}}: i1) -> tensor<8x8xf32>
// BRANCHES: %[[M:.*]] = mpt.matmul
// BRANCHES: %[[F:.*]] = mpt.cast %[[M]] : tensor<8x8xf16> to tensor<8x8xf32>
// BRANCHES: cf.cond_br
// BRANCHES: return %[[F]] : tensor<8x8xf32>
// BRANCHES: return %[[F]] : tensor<8x8xf32>
func.func @branches(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %c: i1) -> tensor<8x8xf32> {
  %0 = mpt.matmul %x, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %0 : tensor<8x8xf32>
^bb2:
  return %0 : tensor<8x8xf32>
}
