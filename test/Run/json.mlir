// --json: a machine-readable summary with the entry, the inputs (shape,
// dtype, role, source, and how a random one was drawn), the outputs (scalars with their value, tensors with
// min/max/mean and the first values, the file written) and the timing.

// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-run %s --seed=7 --json --output-dir=%t > %t/out.json
// RUN: FileCheck %s < %t/out.json
// RUN: %python %S/Inputs/check_json.py %t/out.json | FileCheck %s --check-prefix=PY

// CHECK:      {
// CHECK-NEXT:   "entry": "loss",
// CHECK-NEXT:   "inputs": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "index": 0,
// CHECK-NEXT:       "name": "%logits_in",
// CHECK-NEXT:       "role": "input",
// CHECK-NEXT:       "type": "tensor<6x5xf32>",
// CHECK-NEXT:       "dtype": "f32",
// CHECK-NEXT:       "shape": [
// CHECK-NEXT:         6,
// CHECK-NEXT:         5
// CHECK-NEXT:       ],
// CHECK-NEXT:       "source": "random",
// CHECK-NEXT:       "distribution": "normal(0, 1)",
// CHECK-NEXT:       "draw": {
// CHECK-NEXT:         "kind": "normal",
// CHECK-NEXT:         "stddev": 1,
// CHECK-NEXT:         "seed": 7,
// CHECK-NEXT:         "stream": 0
// CHECK-NEXT:       }
// CHECK-NEXT:     },
// CHECK:            "name": "%labels",
// CHECK-NEXT:       "role": "label",
// CHECK-NEXT:       "type": "tensor<6xi64>",
// CHECK-NEXT:       "dtype": "i64",
// CHECK:            "distribution": "uniform integers in [0, 5)",
// CHECK-NEXT:       "draw": {
// CHECK-NEXT:         "kind": "integers",
// CHECK-NEXT:         "bound": 5,
// CHECK-NEXT:         "seed": 7,
// CHECK-NEXT:         "stream": 1
// CHECK-NEXT:       }
// CHECK:        "outputs": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "index": 0,
// CHECK-NEXT:       "role": "loss",
// CHECK-NEXT:       "type": "tensor<f32>",
// CHECK-NEXT:       "dtype": "f32",
// CHECK-NEXT:       "shape": [],
// CHECK-NEXT:       "value": {{[0-9.e+-]+}},
// CHECK-NEXT:       "file": "{{.*}}result_0.npy"
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "index": 1,
// CHECK-NEXT:       "type": "tensor<6x5xf32>",
// CHECK:            "min": {{[0-9.e+-]+}},
// CHECK-NEXT:       "max": {{[0-9.e+-]+}},
// CHECK-NEXT:       "mean": {{[0-9.e+-]+}},
// CHECK-NEXT:       "zeros": 0,
// CHECK-NEXT:       "nan": 0,
// CHECK-NEXT:       "inf": 0,
// CHECK-NEXT:       "first": [
// CHECK:        "timing": {
// CHECK-NEXT:     "lower_ms": {{[0-9.e+-]+}},
// CHECK-NEXT:     "jit_ms": {{[0-9.e+-]+}},
// CHECK-NEXT:     "run_ms": {{[0-9.e+-]+}},
// CHECK-NEXT:     "calls": 1
// CHECK-NEXT:   }
// CHECK-NEXT: }

// PY: inputs: logits_in f32 [6, 5] input, labels i64 [6] label
// PY: labels in [0, 5): True
// PY: outputs: loss f32 [] value, 6x5 f32 [6, 5] first 8
// PY: loss matches numpy: True
// PY: softmax matches numpy: True

func.func @loss(%logits_in: tensor<6x5xf32> {mpt.role = #mpt.role<input>},
                %labels: tensor<6xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<6x5xf32>, tensor<6xi64>) {
  %loss = mpt.softmax_cross_entropy %logits_in, %labels
      : (tensor<6x5xf32>, tensor<6xi64>) -> tensor<f32>
  %p = mpt.softmax %logits_in : tensor<6x5xf32>
  func.return %loss, %p, %labels : tensor<f32>, tensor<6x5xf32>, tensor<6xi64>
}
