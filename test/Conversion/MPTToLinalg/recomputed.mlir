// An op marked mpt.recomputed (a copy the backward pass computes again)
// lowers to ops that are all marked, so that CSE merges none of them with
// the original's: here the softmax's two row statistics (the max and the sum
// of exponentials), their fills and the result. With only the result
// marked, CSE would give the copy the original's statistics, which read the
// forward pass's scores and so keep them alive until the backward pass.
// RUN: mpt-opt %s --convert-mpt-to-linalg -cse | FileCheck %s

// CHECK-LABEL: func.func @softmax_twice(
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-NOT: mpt.recomputed
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-NOT: mpt.recomputed
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: linalg.fill {mpt.recomputed}
// CHECK: %[[MAX2:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: mpt.recomputed
// CHECK: linalg.fill {mpt.recomputed}
// CHECK: %[[SUM2:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MAX2]] :
// CHECK-SAME: mpt.recomputed
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MAX2]], %[[SUM2]] :
// CHECK-SAME: mpt.recomputed
// CHECK: return %[[P]], %[[R]]
func.func @softmax_twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = mpt.softmax %x : tensor<4x8xf32>
  %r = mpt.softmax %x {mpt.recomputed} : tensor<4x8xf32>
  return %p, %r : tensor<4x8xf32>, tensor<4x8xf32>
}
