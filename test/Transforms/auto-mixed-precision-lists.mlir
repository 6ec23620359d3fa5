// The lists= file of mpt-auto-mixed-precision: adding an op to a class,
// removing one from its default class, giving ops of other dialects a class,
// and an error, with the file name and line, for every malformed file.
//
// Inputs/amp-lists.json adds mpt.gelu to deny, removes mpt.conv2d from allow,
// and adds foo.infer to infer and foo.clear to clear.

// Without a lists file: gelu and conv2d follow their default classes, and the
// unregistered ops have no policy: fp32, with a remark each.
// RUN: mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT-REMARK --implicit-check-not=remark

// With the lists file.
// RUN: mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-lists.json 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=LISTS
// RUN: mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-lists.json -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LISTS-REMARK --implicit-check-not=remark

// An empty object changes nothing.
// RUN: echo '{}' > %t.empty.json
// RUN: mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%t.empty.json 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// Errors, at the module, with the file name and (but for an unreadable file)
// the line of the offending key or name.
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/does-not-exist.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREADABLE
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-json.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-JSON
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-not-object.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-OBJECT
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-class.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-CLASS
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-class-value.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-CLASS-VALUE
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-key.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-KEY
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-names-not-list.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-LIST
// The line is the one of the bad entry, even when its key appears earlier.
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-later-entry.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LATER
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-names-not-string.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-STRING
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-names-no-dot.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-DOT
// RUN: not mpt-opt %s -allow-unregistered-dialect --mpt-auto-mixed-precision=lists=%S/Inputs/amp-bad-added-twice.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE

// UNREADABLE: error: mpt-auto-mixed-precision: cannot read lists file '{{.*}}Inputs{{[/\\]}}does-not-exist.json':
// The JSON parser reports its own position, "[line:column, byte=offset]".
// BAD-JSON: error: mpt-auto-mixed-precision: {{.*}}amp-bad-json.json:3:24: malformed lists file: Invalid JSON value
// NOT-OBJECT: error: mpt-auto-mixed-precision: {{.*}}amp-bad-not-object.json:1: the lists file must be a JSON object mapping a class to {"add": [...], "remove": [...]}
// BAD-CLASS: error: mpt-auto-mixed-precision: {{.*}}amp-bad-class.json:3: unknown class 'fast'; expected allow, deny, infer or clear
// BAD-CLASS-VALUE: error: mpt-auto-mixed-precision: {{.*}}amp-bad-class-value.json:3: class 'infer' must map to an object with "add" and/or "remove" lists
// BAD-KEY: error: mpt-auto-mixed-precision: {{.*}}amp-bad-key.json:4: unknown key 'delete' in class 'deny'; expected add or remove
// NOT-LIST: error: mpt-auto-mixed-precision: {{.*}}amp-bad-names-not-list.json:3: 'remove' of class 'deny' must be a list of op names
// NOT-STRING: error: mpt-auto-mixed-precision: {{.*}}amp-bad-names-not-string.json:3: 'add' of class 'deny' must hold op names such as "mpt.gelu"
// NO-DOT: error: mpt-auto-mixed-precision: {{.*}}amp-bad-names-no-dot.json:3: 'add' of class 'deny' must hold op names such as "mpt.gelu"
// The classes of a JSON object are not visited in file order, so either
// class may be named first; the line is that of the op's first mention.
// The second add, in file order, is the one reported.
// LATER: error: mpt-auto-mixed-precision: {{.*}}amp-bad-later-entry.json:4: 'add' of class 'infer' must be a list of op names
// TWICE: error: mpt-auto-mixed-precision: {{.*}}amp-bad-added-twice.json:3: op 'mpt.gelu' is added to both 'deny' and 'infer'

// A deny op stays fp32, and deny propagates to the infer add that lies on its
// path to the second matmul (which would otherwise be between allow ops).
// DEFAULT-LABEL: func.func @gelu_deny(
// DEFAULT:         %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<16x16xf16>
// DEFAULT-NEXT:    %[[G:.*]] = mpt.gelu %[[MM]] : tensor<16x16xf16>
// DEFAULT-NEXT:    %[[ADD:.*]] = mpt.add %[[G]], %{{.*}} : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// DEFAULT-NEXT:    mpt.matmul %[[ADD]], {{.*}} -> tensor<16x16xf16>

// LISTS-LABEL: func.func @gelu_deny(
// LISTS-SAME:      %[[X:.*]]: tensor<16x16xf32>, %{{.*}}: tensor<16x16xf32>)
// LISTS:           %[[MM:.*]] = mpt.matmul {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
// LISTS-NEXT:      %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<16x16xf16> to tensor<16x16xf32>
// LISTS-NEXT:      %[[G:.*]] = mpt.gelu %[[MM32]] : tensor<16x16xf32>
// LISTS-NEXT:      %[[ADD:.*]] = mpt.add %[[G]], %[[X]] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// LISTS-NEXT:      %[[ADD16:.*]] = mpt.cast %[[ADD]] : tensor<16x16xf32> to tensor<16x16xf16>
// LISTS-NEXT:      mpt.matmul %[[ADD16]], {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
func.func @gelu_deny(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = mpt.gelu %0 : tensor<16x16xf32>
  %2 = mpt.add %1, %x : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = mpt.matmul %2, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %3 : tensor<16x16xf32>
}

// An op removed from its class has no policy: fp32, with a remark.
// DEFAULT-LABEL: func.func @conv_removed(
// DEFAULT:         mpt.conv2d {{.*}} acc(f32) : (tensor<1x4x8x8xf16>, tensor<4x4x3x3xf16>) -> tensor<1x4x8x8xf16>

// LISTS-LABEL: func.func @conv_removed(
// LISTS-SAME:      %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x4x3x3xf32>)
// LISTS-NEXT:      %[[C:.*]] = mpt.conv2d %[[X]], %[[W]] pad [1, 1, 1, 1] : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
// LISTS-NEXT:      return %[[C]] : tensor<1x4x8x8xf32>
func.func @conv_removed(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // LISTS-REMARK: auto-mixed-precision-lists.mlir:[[@LINE+1]]:8: remark: no precision policy for 'mpt.conv2d'; kept in fp32 (name it in a class of the lists= file to change that)
  %0 = mpt.conv2d %x, %w pad [1, 1, 1, 1] : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// An op of another dialect has no policy unless the lists file names it;
// added to infer, it runs in low precision between two allow ops.
// DEFAULT-LABEL: func.func @foreign_infer(
// DEFAULT:         %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x4xf16>
// DEFAULT-NEXT:    %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<4x4xf16> to tensor<4x4xf32>
// DEFAULT-NEXT:    %[[F:.*]] = "foo.infer"(%[[MM32]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// DEFAULT-NEXT:    %[[F16:.*]] = mpt.cast %[[F]] : tensor<4x4xf32> to tensor<4x4xf16>
// DEFAULT-NEXT:    mpt.matmul %[[F16]], {{.*}} -> tensor<4x4xf16>

// LISTS-LABEL: func.func @foreign_infer(
// LISTS:           %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x4xf16>
// LISTS-NEXT:      %[[F:.*]] = "foo.infer"(%[[MM]]) : (tensor<4x4xf16>) -> tensor<4x4xf16>
// LISTS-NEXT:      mpt.matmul %[[F]], {{.*}} -> tensor<4x4xf16>
func.func @foreign_infer(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = mpt.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  // DEFAULT-REMARK: auto-mixed-precision-lists.mlir:[[@LINE+1]]:8: remark: no precision policy for 'foo.infer'; kept in fp32
  %1 = "foo.infer"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = mpt.matmul %1, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// After the last matmul, a clear op follows it into low precision; an infer
// op, not between two allow ops, stays fp32.
// DEFAULT-LABEL: func.func @foreign_tail(
// DEFAULT:         %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x4xf16>
// DEFAULT-NEXT:    %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<4x4xf16> to tensor<4x4xf32>
// DEFAULT-NEXT:    %[[C:.*]] = "foo.clear"(%[[MM32]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// DEFAULT-NEXT:    %[[I:.*]] = "foo.infer"(%[[MM32]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// DEFAULT-NEXT:    return %[[C]], %[[I]]

// LISTS-LABEL: func.func @foreign_tail(
// (Each cast sits right before its first user.)
// LISTS:           %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x4xf16>
// LISTS-NEXT:      %[[C:.*]] = "foo.clear"(%[[MM]]) : (tensor<4x4xf16>) -> tensor<4x4xf16>
// LISTS-NEXT:      %[[MM32:.*]] = mpt.cast %[[MM]] : tensor<4x4xf16> to tensor<4x4xf32>
// LISTS-NEXT:      %[[I:.*]] = "foo.infer"(%[[MM32]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// LISTS-NEXT:      %[[C32:.*]] = mpt.cast %[[C]] : tensor<4x4xf16> to tensor<4x4xf32>
// LISTS-NEXT:      return %[[C32]], %[[I]]
func.func @foreign_tail(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = mpt.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  // DEFAULT-REMARK: auto-mixed-precision-lists.mlir:[[@LINE+1]]:8: remark: no precision policy for 'foo.clear'; kept in fp32
  %1 = "foo.clear"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // DEFAULT-REMARK: auto-mixed-precision-lists.mlir:[[@LINE+1]]:8: remark: no precision policy for 'foo.infer'; kept in fp32
  %2 = "foo.infer"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}
