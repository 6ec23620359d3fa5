// mpt-distinct-results: each repetition of a returned tensor value gets a
// copy of its own; first occurrences, arguments and non-tensors stay.
// RUN: mpt-opt %s --mpt-distinct-results -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @repeated(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[N:[a-z0-9]+]]: index
// CHECK: %[[T:.*]] = mpt.tanh %[[X]]
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<4xf32>
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<4xf32>
// CHECK: return %[[T]], %[[X]], %[[C1]], %[[X]], %[[N]], %[[C2]], %[[N]]
func.func @repeated(%x: tensor<4xf32>, %n: index)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index,
        tensor<4xf32>, index) {
  %t = mpt.tanh %x : tensor<4xf32>
  return %t, %x, %t, %x, %n, %t, %n
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index,
        tensor<4xf32>, index
}

// -----

// A dynamic shape: the copy takes its sizes from the value.
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[T:.*]] = mpt.tanh
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<?xf32>
// CHECK: return %[[T]], %[[C]]
func.func @dynamic(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %t = mpt.tanh %x : tensor<?xf32>
  return %t, %t : tensor<?xf32>, tensor<?xf32>
}

// -----

// Nothing repeats: nothing changes.
// CHECK-LABEL: func.func @distinct(
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @distinct(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = mpt.tanh %x : tensor<4xf32>
  return %t, %x : tensor<4xf32>, tensor<4xf32>
}
