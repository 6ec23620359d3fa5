// Training mode: the parameter result is fed back as the parameter argument,
// so the loss changes from step to step exactly as numpy predicts; the input
// and the label stay the same.
//
//   loss = mean((w * x - t)^2),  w_new = w - 0.1 * w

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen steps %t
// RUN: mpt-run %s --entry=step --input=%t/w.npy --input=%t/x.npy \
// RUN:   --input=%t/t.npy --steps=5 --output-dir=%t > %t/out.txt
// RUN: FileCheck %s < %t/out.txt
// RUN: %python %S/Inputs/reference.py check-steps steps %t/out.txt \
// RUN:   | FileCheck %s --check-prefix=REF
// The parameter written after the last step is 0.9^5 * w.
// RUN: %python -c "import numpy as np; w = np.load('%t/w.npy'); \
// RUN:   r = np.load('%t/result_1.npy'); \
// RUN:   print('w5 ok' if np.allclose(r, w * 0.9**5, rtol=1e-5) else r)" \
// RUN:   | FileCheck %s --check-prefix=W5

// CHECK: argument #0 (%w, parameter): tensor<4xf32> from
// CHECK: step 1: loss 8.6875 ({{[0-9]+\.[0-9][0-9]}} ms)
// CHECK-NEXT: step 2: loss {{[0-9.]+}} ({{[0-9.]+}} ms)
// CHECK-NEXT: step 3: loss
// CHECK-NEXT: step 4: loss
// CHECK-NEXT: step 5: loss
// CHECK-NEXT: wrote 2 results to
// CHECK-NEXT: time: lower {{.*}} run {{[0-9.]+}} ms (5 calls)
// REF: steps: ok (5 steps)
// W5: w5 ok

// The JSON summary: one record per step, the final results as outputs.
// RUN: mpt-run %s --entry=step --input=%t/w.npy --input=%t/x.npy \
// RUN:   --input=%t/t.npy --steps=3 --json > %t/out.json
// RUN: %python -c "import json; d = json.load(open('%t/out.json')); \
// RUN:   print([s['step'] for s in d['steps']], d['steps'][0]['loss'], \
// RUN:         sorted(d['steps'][0]), d['timing']['calls'], \
// RUN:         d['outputs'][0]['role'], d['outputs'][0]['value'] == d['steps'][-1]['loss'])" \
// RUN:   | FileCheck %s --check-prefix=JSON
// JSON: [1, 2, 3] 8.6875 ['loss', 'ms', 'step'] 3 loss True

func.func @step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                %x: tensor<4xf32> {mpt.role = #mpt.role<input>},
                %t: tensor<4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>},
        tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %p = mpt.mul %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %loss = mpt.mse_loss %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %lr = mpt.constant dense<0.1> : tensor<f32>
  %d = mpt.mul %w, %lr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %w_new = mpt.sub %w, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %loss, %w_new : tensor<f32>, tensor<4xf32>
}

// A loss scale state fed back and printed as `scale`: random arguments
// start it at 65536, and every step doubles it.

// RUN: mpt-run %s --entry=scaled --steps=3 | FileCheck %s --check-prefix=SCALE
// SCALE: argument #1 (%s, loss_scale_state): tensor<f32> 65536 then zeros
// SCALE: step 1: loss {{[0-9.e+-]+}} scale 131072 ({{[0-9.]+}} ms)
// SCALE-NEXT: step 2: loss {{[0-9.e+-]+}} scale 262144 (
// SCALE-NEXT: step 3: loss {{[0-9.e+-]+}} scale 524288 (

// RUN: mpt-run %s --entry=scaled --steps=2 --json | FileCheck %s --check-prefix=SCALE-JSON
// SCALE-JSON: "steps": [
// SCALE-JSON: "step": 1,
// SCALE-JSON-NEXT: "loss":
// SCALE-JSON-NEXT: "scale": 131072,
// SCALE-JSON-NEXT: "scale_state": [
// SCALE-JSON-NEXT: 131072
// SCALE-JSON-NEXT: ],
// SCALE-JSON-NEXT: "ms":

func.func @scaled(%w: tensor<2x3xf32> {mpt.role = #mpt.role<parameter>},
                  %s: tensor<f32> {mpt.role = #mpt.role<loss_scale_state>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>},
        tensor<2x3xf32> {mpt.role = #mpt.role<parameter>},
        tensor<f32> {mpt.role = #mpt.role<loss_scale_state>}) {
  %sq = mpt.mul %w, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = mpt.reduce_mean %sq axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %half = mpt.constant dense<0.5> : tensor<f32>
  %w_new = mpt.mul %w, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %two = mpt.constant dense<2.0> : tensor<f32>
  %s_new = mpt.mul %s, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %loss, %w_new, %s_new : tensor<f32>, tensor<2x3xf32>, tensor<f32>
}

// State arguments start from their `mpt.initial_value`; --step-input gives an
// argument one row per step (cycling); --save-steps writes every step's
// results; an i1 result is a numpy bool. Step 2 of xs has an inf: its
// found_inf is true and the parameter stays as it was.

// RUN: %python -c "import numpy as np; \
// RUN:   np.save('%t/xs.npy', np.array([[1, 2], [np.inf, 3], [0.5, 0.25]], np.float32)); \
// RUN:   np.save('%t/w0.npy', np.array([10, 20], np.float32))"
// RUN: mpt-run %s --entry=counted --steps=4 --step-input=1=%t/xs.npy \
// RUN:   --output-dir=%t/counted --save-steps | FileCheck %s --check-prefix=INIT
// INIT: argument #2 (%s, loss_scale_state): tensor<f32> mpt.initial_value
// INIT-NEXT: argument #3 (%n, loss_scale_state): tensor<i32> mpt.initial_value
// INIT-NEXT: step 1: loss {{[0-9.e+-]+}} scale 16 (state 16 3) (
// INIT-NEXT: step 2: loss {{.*}} scale 32 (state 32 3) (
// INIT-NEXT: step 3: loss {{.*}} scale 64 (state 64 3) (
// INIT-NEXT: step 4: loss {{.*}} scale 128 (state 128 3) (
// RUN: %python -c "import numpy as np; d = '%t/counted'; \
// RUN:   f = [bool(np.load(d + '/step_%%d/result_4.npy' %% s)) for s in (1, 2, 3, 4)]; \
// RUN:   w = [np.load(d + '/step_%%d/result_1.npy' %% s).tolist() for s in (1, 2, 3, 4)]; \
// RUN:   print(np.load(d + '/result_4.npy').dtype, f, w)" | FileCheck %s --check-prefix=SAVED
// Unscaled by 1/s: step 1 adds [1, 2] / 8, step 2 is skipped, step 3 adds
// [0.5, 0.25] / 32, step 4 adds [1, 2] / 64 (the first row again).
// SAVED: bool [False, True, False, False] {{\[}}[0.125, 0.25], [0.125, 0.25], [0.140625, 0.2578125], [0.15625, 0.2890625]]

func.func @counted(%w: tensor<2xf32> {mpt.role = #mpt.role<parameter>},
                   %x: tensor<2xf32> {mpt.role = #mpt.role<input>},
                   %s: tensor<f32> {mpt.role = #mpt.role<loss_scale_state>,
                                    mpt.initial_value = dense<8.0> : tensor<f32>},
                   %n: tensor<i32> {mpt.role = #mpt.role<loss_scale_state>,
                                    mpt.initial_value = dense<3> : tensor<i32>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>},
        tensor<2xf32> {mpt.role = #mpt.role<parameter>},
        tensor<f32> {mpt.role = #mpt.role<loss_scale_state>},
        tensor<i32> {mpt.role = #mpt.role<loss_scale_state>}, tensor<i1>) {
  %u, %found = mpt.unscale_and_check %x scales(%s)
      : (tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<i1>)
  %sum = mpt.add %w, %u : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w_new = mpt.select %found, %w, %sum : tensor<i1>, tensor<2xf32>
  %loss = mpt.reduce_sum %w_new axes = [0] : tensor<2xf32> -> tensor<f32>
  %two = mpt.constant dense<2.0> : tensor<f32>
  %s_new = mpt.mul %s, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %loss, %w_new, %s_new, %n, %found
      : tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<i1>
}
