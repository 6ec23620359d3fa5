// Errors of mpt-autodiff and mpt-build-train-step. The cases live in one file,
// split by split-file: the mpt-autodiff cases share one section (split again
// with -split-input-file), and each mpt-build-train-step case has its own
// section because each needs its own options.

// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/autodiff.mlir --mpt-autodiff -split-input-file -verify-diagnostics -o /dev/null
// The same errors come from mpt-build-train-step, which finds the loss and
// the parameters the same way.
// RUN: mpt-opt %t/step-autodiff.mlir --mpt-build-train-step -split-input-file -verify-diagnostics -o /dev/null

// RUN: mpt-opt %t/unknown-optimizer.mlir --mpt-build-train-step=optimizer=rmsprop -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step=lr=0 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step=lr=-0.1 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step="optimizer=momentum momentum=1" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step="optimizer=momentum momentum=-0.5" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step="optimizer=adam beta1=1" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step="optimizer=adam beta2=1.5" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step="optimizer=adam eps=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step=weight-decay=-1 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-lr.mlir --mpt-build-train-step=clip-norm=-1 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/two-functions.mlir --mpt-build-train-step -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/missing-function.mlir --mpt-build-train-step=function=nope -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/function-without-parameters.mlir --mpt-build-train-step=function=eval -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/existing-step.mlir --mpt-build-train-step -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/existing-name.mlir --mpt-build-train-step=name=step -verify-diagnostics -o /dev/null

// Two candidates are fine once function= picks one, and an existing
// @train_step is fine with another name=.
// RUN: mpt-opt %t/two-functions.mlir --mpt-build-train-step=function=b | FileCheck %s --check-prefix=PICK
// PICK: func.func @train_step(%{{.*}}: tensor<3xf32> {mpt.role = #mpt.role<parameter>}
// RUN: mpt-opt %t/existing-step.mlir --mpt-build-train-step=name=step2 | FileCheck %s --check-prefix=NAME
// NAME: func.func @step2(

//--- autodiff.mlir

// No loss: the only result is not a scalar and no result has the loss role.
// expected-error @+1 {{has no loss: mark a rank-0 float result with {mpt.role = #mpt.role<loss>} (or return only the loss)}}
func.func @no_loss(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<4xf32> {
  %e = mpt.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// Two scalar results, none marked as the loss.
// expected-error @+1 {{has no loss}}
func.func @two_scalars(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> (tensor<f32>, tensor<f32>) {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  %m = mpt.reduce_mean %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}

// -----

// An integer scalar is not a loss either.
// expected-error @+1 {{has no loss}}
func.func @integer_result(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}, %i: tensor<i64>) -> tensor<i64> {
  return %i : tensor<i64>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a rank-0 float tensor, got 'tensor<4xf32>'}}
func.func @non_scalar_loss(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> (tensor<4xf32> {mpt.role = #mpt.role<loss>}) {
  %e = mpt.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{the loss (result #1) must be a rank-0 float tensor, got 'tensor<i32>'}}
func.func @integer_loss(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}, %i: tensor<i32>) -> (tensor<f32>, tensor<i32> {mpt.role = #mpt.role<loss>}) {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s, %i : tensor<f32>, tensor<i32>
}

// -----

// No function has a parameter: an error on the module.
// expected-error @+1 {{mpt-autodiff: no function has a parameter; mark the arguments to differentiate with {mpt.role = #mpt.role<parameter>}}}
module {
  func.func @no_parameters(%x: tensor<4xf32> {mpt.role = #mpt.role<input>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

// -----

// expected-error @+1 {{parameter #1 must be a float tensor, got 'tensor<4xi64>'}}
func.func @integer_parameter(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                             %i: tensor<4xi64> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Ops of other dialects have no rule.
func.func @math_exp(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  // expected-error @+1 {{'math.exp' op has no gradient rule in mpt-autodiff; the loss depends on it through a float value}}
  %e = math.exp %x : tensor<4xf32>
  %s = mpt.reduce_sum %e axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The error names the last op without a rule on the way back from the loss.
func.func @arith(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %e = math.exp %x : tensor<4xf32>
  // expected-error @+1 {{'arith.addf' op has no gradient rule in mpt-autodiff}}
  %a = arith.addf %e, %x : tensor<4xf32>
  %s = mpt.reduce_sum %a axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Control flow: ops with regions are not differentiated.
func.func @region(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  // expected-error @+1 {{'scf.execute_region' op has regions; mpt-autodiff differentiates straight-line graphs only}}
  %r = scf.execute_region -> tensor<4xf32> {
    %e = mpt.exp %x : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  %s = mpt.reduce_sum %r axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// An op without a rule is fine when the loss does not depend on it.
func.func @off_path(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}, %y: tensor<4xf32>)
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32>) {
  %a = math.absf %x : tensor<4xf32>
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s, %a : tensor<f32>, tensor<4xf32>
}

//--- step-autodiff.mlir

// expected-error @+1 {{has no loss}}
func.func @no_loss(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<4xf32> {
  %e = mpt.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a rank-0 float tensor, got 'tensor<2xf32>'}}
func.func @non_scalar_loss(%x: tensor<2xf32> {mpt.role = #mpt.role<parameter>}) -> (tensor<2xf32> {mpt.role = #mpt.role<loss>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{parameter #0 must be a float tensor, got 'tensor<4xi32>'}}
func.func @integer_parameter(%i: tensor<4xi32> {mpt.role = #mpt.role<parameter>}, %x: tensor<4xf32>) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @math_exp(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  // expected-error @+1 {{'math.exp' op has no gradient rule in mpt-autodiff}}
  %e = math.exp %x : tensor<4xf32>
  %s = mpt.reduce_sum %e axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{mpt-build-train-step: expected one function with parameters, found 0; name it with function=}}
module {
  func.func @no_parameters(%x: tensor<4xf32>) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- unknown-optimizer.mlir
// expected-error @+1 {{mpt-build-train-step: unknown optimizer 'rmsprop'; expected sgd, momentum or adam}}
module {
  func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- bad-lr.mlir
// expected-error @+1 {{mpt-build-train-step: expects lr > 0, momentum, beta1 and beta2 in [0, 1), eps > 0, weight-decay >= 0 and clip-norm >= 0}}
module {
  func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- two-functions.mlir
// expected-error @+1 {{mpt-build-train-step: expected one function with parameters, found 2; name it with function=}}
module {
  func.func @a(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
  func.func @b(%x: tensor<3xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<3xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
  // Functions without parameters are not candidates.
  func.func @eval(%x: tensor<4xf32>) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- missing-function.mlir
// expected-error @+1 {{mpt-build-train-step: no function @nope in the module}}
module {
  func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- function-without-parameters.mlir
module {
  func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
  // expected-error @+1 {{has no parameters: mark the arguments to train with {mpt.role = #mpt.role<parameter>}}}
  func.func @eval(%x: tensor<4xf32>) -> tensor<f32> {
    %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}

//--- existing-step.mlir
// expected-error @+1 {{mpt-build-train-step: the module already has a symbol @train_step; choose another name=}}
func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @train_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

//--- existing-name.mlir
// expected-error @+1 {{mpt-build-train-step: the module already has a symbol @step; choose another name=}}
func.func @f(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @step(tensor<4xf32>) -> tensor<4xf32>
