// Every error of mpt-run: exit code 1 and one `mpt-run: error: ...` line.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; \
// RUN:   np.save('%t/x23.npy', np.zeros((2, 3), np.float32)); \
// RUN:   np.save('%t/x32.npy', np.zeros((3, 2), np.float32)); \
// RUN:   np.save('%t/x23_f64.npy', np.zeros((2, 3))); \
// RUN:   np.save('%t/x23_fortran.npy', np.asfortranarray(np.zeros((2, 3), np.float32))); \
// RUN:   np.save('%t/w.npy', np.zeros((3, 4), np.float32)); \
// RUN:   open('%t/garbage.npy', 'wb').write(b'not an array'); \
// RUN:   open('%t/truncated.npy', 'wb').write(open('%t/x23.npy', 'rb').read()[:-4])"

// Unknown entry: the message lists the functions there are.
// RUN: not mpt-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: mpt-run: error: no function @nope (available: @dense, @dynamic, @unranked, @not_tensor, @f8, @rank7, @dynamic_result, @tosa, @call_external)

// RUN: not mpt-run %s --entry=dense --input=%t/x23.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COUNT
// COUNT: mpt-run: error: @dense takes 2 arguments, but 1 --input file was given (one per argument, in order)

// RUN: not mpt-run %s --entry=dense --input=%t/x32.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: mpt-run: error: argument #0 (%x, input): {{.*}}x32.npy has shape 3x2, expected 2x3 (tensor<2x3xf32>)

// RUN: not mpt-run %s --entry=dense --input=%t/x23_f64.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: mpt-run: error: argument #0 (%x, input): {{.*}}x23_f64.npy has dtype '<f8', expected '<f4' (f32)

// RUN: not mpt-run %s --entry=dense --input=%t/x23.npy --input=%t/x23.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND
// SECOND: mpt-run: error: argument #1 (%w, parameter): {{.*}}x23.npy has shape 2x3, expected 3x4 (tensor<3x4xf32>)

// RUN: not mpt-run %s --entry=dense --input=%t/missing.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: mpt-run: error: argument #0 (%x, input): {{.*}}missing.npy: cannot read: No such file or directory

// RUN: not mpt-run %s --entry=dense --input=%t/garbage.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: mpt-run: error: argument #0 (%x, input): {{.*}}garbage.npy: not a .npy file (bad magic string)

// RUN: not mpt-run %s --entry=dense --input=%t/truncated.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: mpt-run: error: argument #0 (%x, input): {{.*}}truncated.npy: malformed .npy file: expected 24 bytes of data for shape (2, 3) and dtype '<f4', found 20

// RUN: not mpt-run %s --entry=dense --input=%t/x23_fortran.npy --input=%t/w.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: mpt-run: error: argument #0 (%x, input): {{.*}}x23_fortran.npy: Fortran-ordered arrays are not supported

// --step-input and --save-steps.
// RUN: %python -c "import numpy as np; \
// RUN:   np.save('%t/steps_x.npy', np.zeros((5, 2, 3), np.float32)); \
// RUN:   np.save('%t/steps_bad.npy', np.zeros((5, 3, 2), np.float32))"
// RUN: not mpt-run %s --entry=dense --step-input=0=%t/steps_x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-NO-STEPS
// STEP-NO-STEPS: mpt-run: error: --step-input needs --steps
// RUN: not mpt-run %s --entry=dense --steps=2 --step-input=%t/steps_x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-SYNTAX
// STEP-SYNTAX: mpt-run: error: --step-input={{.*}}steps_x.npy: expected K=path.npy with K an argument index
// RUN: not mpt-run %s --entry=dense --steps=2 --step-input=2=%t/steps_x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-INDEX
// STEP-INDEX: mpt-run: error: --step-input=2={{.*}}: @dense has 2 arguments (0 to 1)
// RUN: not mpt-run %s --entry=dense --steps=2 --step-input=0=%t/steps_x.npy --step-input=0=%t/steps_x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-TWICE
// STEP-TWICE: mpt-run: error: --step-input: argument 0 is given twice
// RUN: not mpt-run %s --entry=dense --steps=2 --step-input=0=%t/steps_bad.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-SHAPE
// STEP-SHAPE: mpt-run: error: argument #0 (%x, input): {{.*}}steps_bad.npy has shape 5x3x2, expected N x 2x3 (one tensor<2x3xf32> per step, N >= 1)
// RUN: not mpt-run %s --entry=dense --steps=2 --step-input=0=%t/x23_f64.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEP-DTYPE
// STEP-DTYPE: mpt-run: error: argument #0 (%x, input): {{.*}}x23_f64.npy has dtype '<f8', expected '<f4' (f32)
// RUN: not mpt-run %s --entry=dense --steps=2 --save-steps 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SAVE-STEPS
// SAVE-STEPS: mpt-run: error: --save-steps needs --steps and --output-dir

func.func @dense(%x: tensor<2x3xf32> {mpt.role = #mpt.role<input>},
                 %w: tensor<3x4xf32> {mpt.role = #mpt.role<parameter>})
    -> tensor<2x4xf32> {
  %m = mpt.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %m : tensor<2x4xf32>
}

// Unsupported argument and result types, named in the message.
// RUN: not mpt-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: mpt-run: error: argument #0 (%x) has type tensor<?x4xf32>, a dynamic shape; mpt-run supports statically shaped ranked tensors of rank 0 to 6 of f32, f64, f16, bf16, i64 or i32
// RUN: not mpt-run %s --entry=unranked 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: mpt-run: error: argument #1 (%u) has type tensor<*xf32>, an unranked tensor;
// RUN: not mpt-run %s --entry=not_tensor 2>&1 | FileCheck %s --check-prefix=NOT-TENSOR
// NOT-TENSOR: mpt-run: error: argument #0 (%s, input) has type f32, not a tensor;
// RUN: not mpt-run %s --entry=f8 2>&1 | FileCheck %s --check-prefix=F8
// F8: mpt-run: error: argument #0 (%x) has type tensor<4xf8E4M3FN>, an unsupported element type;
// RUN: not mpt-run %s --entry=rank7 2>&1 | FileCheck %s --check-prefix=RANK7
// RANK7: mpt-run: error: argument #0 (%x) has type tensor<1x1x1x1x1x1x1xf32>, rank 7;
// RUN: not mpt-run %s --entry=dynamic_result 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: mpt-run: error: result #0 has type tensor<?xf32>, a dynamic shape;

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %x : tensor<?x4xf32>
}
func.func @unranked(%x: tensor<4xf32>, %u: tensor<*xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
func.func @not_tensor(%s: f32 {mpt.role = #mpt.role<input>}) -> f32 {
  func.return %s : f32
}
func.func @f8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  func.return %x : tensor<4xf8E4M3FN>
}
func.func @rank7(%x: tensor<1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1xf32> {
  func.return %x : tensor<1x1x1x1x1x1x1xf32>
}
func.func @dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  %c = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  func.return %c : tensor<?xf32>
}

// Pipeline failure: the lowering does not handle tosa. The diagnostics of
// the pipeline come first. Only the functions the entry reaches are
// lowered: @dense above runs although @tosa does not lower.
// RUN: not mpt-run %s --entry=tosa 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: errors.mlir:[[# @LINE + 6]]:8: error: op was not bufferized
// PIPELINE: mpt-run: error: cannot lower @tosa to the CPU: mpt-lower-to-cpu failed
// RUN: mpt-run %s --entry=dense | FileCheck %s --check-prefix=DENSE
// DENSE: result #0: tensor<2x4xf32>

func.func @tosa(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// JIT failure: a call to a function nobody defines.
// RUN: not mpt-run %s --entry=call_external 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: Symbols not found: [ external ]
// JIT: mpt-run: error: cannot JIT-compile @call_external:

func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @call_external(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @external(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
