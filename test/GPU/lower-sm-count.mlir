// mpt-lower-sm-count: each function's mpt.sm_count queries become one call
// of the runtime's mgpuDeviceMultiprocessorCount at the function's entry
// (sms=0), declared once in the module, or the constant `sms`; queries for
// clusters call mgpuDeviceClusterMultiprocessorCount with the cluster's
// size, once per size, or take the SMs of whole clusters among `sms`.
// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/queries.mlir --mpt-lower-sm-count | FileCheck %s --check-prefix=RUNTIME
// RUN: mpt-opt %t/queries.mlir --mpt-lower-sm-count=sms=114 | FileCheck %s --check-prefix=CONST
// RUN: mpt-opt %t/declared.mlir --mpt-lower-sm-count | FileCheck %s --check-prefix=DECLARED
// RUN: mpt-opt %t/wrong-type.mlir --mpt-lower-sm-count -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/wrong-cluster-type.mlir --mpt-lower-sm-count -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/negative.mlir --mpt-lower-sm-count=sms=-1 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/outside.mlir --mpt-lower-sm-count -verify-diagnostics -o /dev/null

//--- queries.mlir
// RUNTIME-LABEL: func.func @two_queries
// RUNTIME-NEXT: %[[CALL:.*]] = call @mgpuDeviceMultiprocessorCount() : () -> i32
// RUNTIME-NEXT: %[[N:.*]] = arith.index_cast %[[CALL]] : i32 to index
// RUNTIME-NEXT: arith.muli %arg0, %arg0
// RUNTIME-NEXT: arith.addi %[[N]], %[[N]]
// CONST-LABEL: func.func @two_queries
// CONST-NEXT: %[[N:.*]] = arith.constant 114 : index
// CONST-NEXT: arith.muli %arg0, %arg0
// CONST-NEXT: arith.addi %[[N]], %[[N]]
func.func @two_queries(%x: index) -> index {
  %a = arith.muli %x, %x : index
  %n = mpt.sm_count
  %m = mpt.sm_count
  %s = arith.addi %n, %m : index
  %t = arith.addi %s, %a : index
  return %t : index
}

// A query in a loop is asked once, before it.
// RUNTIME-LABEL: func.func @in_a_loop
// RUNTIME-NEXT: %[[CALL:.*]] = call @mgpuDeviceMultiprocessorCount() : () -> i32
// RUNTIME-NEXT: %[[N:.*]] = arith.index_cast %[[CALL]] : i32 to index
// RUNTIME: scf.for
// RUNTIME-NOT: call
// RUNTIME: arith.addi %{{.*}}, %[[N]]
// RUNTIME: return
func.func @in_a_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %sms = mpt.sm_count
    %next = arith.addi %acc, %sms : index
    scf.yield %next : index
  }
  return %r : index
}

// Clusters: a call per size, the SMs of whole clusters with `sms` (114:
// 112 in clusters of 4, 110 in clusters of 5).
// RUNTIME-LABEL: func.func @clusters
// RUNTIME-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// RUNTIME-NEXT: %[[CALL4:.*]] = call @mgpuDeviceClusterMultiprocessorCount(%[[C4]]) : (i32) -> i32
// RUNTIME-NEXT: %[[N4:.*]] = arith.index_cast %[[CALL4]] : i32 to index
// RUNTIME-NEXT: %[[CALL:.*]] = call @mgpuDeviceMultiprocessorCount() : () -> i32
// RUNTIME-NEXT: %[[N:.*]] = arith.index_cast %[[CALL]] : i32 to index
// RUNTIME-NEXT: %[[C5:.*]] = arith.constant 5 : i32
// RUNTIME-NEXT: %[[CALL5:.*]] = call @mgpuDeviceClusterMultiprocessorCount(%[[C5]]) : (i32) -> i32
// RUNTIME-NEXT: %[[N5:.*]] = arith.index_cast %[[CALL5]] : i32 to index
// RUNTIME-NEXT: return %[[N4]], %[[N]], %[[N5]], %[[N4]]
// CONST-LABEL: func.func @clusters
// CONST-DAG: %[[N4:.*]] = arith.constant 112 : index
// CONST-DAG: %[[N:.*]] = arith.constant 114 : index
// CONST-DAG: %[[N5:.*]] = arith.constant 110 : index
// CONST: return %[[N4]], %[[N]], %[[N5]], %[[N4]]
func.func @clusters() -> (index, index, index, index) {
  %a = mpt.sm_count cluster 4
  %b = mpt.sm_count
  %c = mpt.sm_count cluster 5
  %d = mpt.sm_count cluster 4
  return %a, %b, %c, %d : index, index, index, index
}

// Without a query, no call.
// RUNTIME-LABEL: func.func @none
// RUNTIME-NOT: call
// RUNTIME: return
func.func @none() {
  return
}
// RUNTIME-DAG: func.func private @mgpuDeviceMultiprocessorCount() -> i32
// RUNTIME-DAG: func.func private @mgpuDeviceClusterMultiprocessorCount(i32) -> i32
// RUNTIME-NOT: mpt.sm_count
// CONST-NOT: call
// CONST-NOT: mpt.sm_count

//--- declared.mlir
// The module's own declaration is the one called.
// DECLARED: func.func private @mgpuDeviceMultiprocessorCount() -> i32
// DECLARED-LABEL: func.func @f
// DECLARED-NEXT: call @mgpuDeviceMultiprocessorCount() : () -> i32
// DECLARED-NOT: func.func private @mgpuDeviceMultiprocessorCount
func.func private @mgpuDeviceMultiprocessorCount() -> i32
func.func @f() -> index {
  %n = mpt.sm_count
  return %n : index
}

//--- wrong-type.mlir
// expected-error @+1 {{mpt-lower-sm-count: @mgpuDeviceMultiprocessorCount is the mpt runtime's function that mpt.sm_count calls, of type '() -> i32'; this module defines another}}
func.func private @mgpuDeviceMultiprocessorCount() -> i64
func.func @f() -> index {
  %n = mpt.sm_count
  return %n : index
}

//--- wrong-cluster-type.mlir
// expected-error @+1 {{mpt-lower-sm-count: @mgpuDeviceClusterMultiprocessorCount is the mpt runtime's function that mpt.sm_count calls, of type '(i32) -> i32'; this module defines another}}
func.func private @mgpuDeviceClusterMultiprocessorCount() -> i32
func.func @f() -> index {
  %n = mpt.sm_count cluster 2
  return %n : index
}

//--- negative.mlir
// expected-error @+1 {{mpt-lower-sm-count: sms=-1 (the pipelines' device-sms); expects 0 (ask the runtime) or a count of multiprocessors}}
module {
  func.func @f() -> index {
    %n = mpt.sm_count
    return %n : index
  }
}

//--- outside.mlir
module {
  // expected-error @+1 {{mpt-lower-sm-count: expects mpt.sm_count in the body of a function (host code)}}
  %n = mpt.sm_count
}
