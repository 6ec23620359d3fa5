// Kernels for emulate-simt-vectors.test: SIMT loops whose threads take
// vectors of 8, 4 and 2 elements or one at a time.
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>

// f32 -> f16: vectors of 4 (16 bytes of f32, 8 of f16).
func.func @cast(%x: tensor<64x256xf32>) -> tensor<64x256xf16> {
  %e = tensor.empty() : tensor<64x256xf16>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// A head merge (f16): vectors of 8 loaded and stored.
func.func @head_merge(%x: tensor<4x4x16x16xf16>) -> tensor<4x16x4x16xf16> {
  %e = tensor.empty() : tensor<4x16x4x16xf16>
  %y = linalg.transpose ins(%x : tensor<4x4x16x16xf16>) outs(%e : tensor<4x16x4x16xf16>) permutation = [0, 2, 1, 3]
  return %y : tensor<4x16x4x16xf16>
}

// A transpose (f32): vectors of 4 stored, loaded one element at a time.
func.func @transpose(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %y = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  return %y : tensor<32x64xf32>
}

// A column sum of f16 into f32 (a bias gradient): a thread's 4 columns a
// row (8 bytes of f16), the sums as vectors of 4 f32.
func.func @column_sum(%x: tensor<64x256xf16>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x256xf16>) outs(%init : tensor<256xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %t = arith.addf %acc, %w : f32
    linalg.yield %t : f32
  } -> tensor<256xf32>
  return %s : tensor<256xf32>
}

// x times a scalar (loaded once for a thread's vector) plus a row vector.
func.func @scale_bias(%x: tensor<64x64xf32>, %s: tensor<f32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #scalar, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %b : tensor<64x64xf32>, tensor<f32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %k : f32
    %t = arith.addf %m, %c : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// Rows of 6 f32: vectors of 2.
func.func @rows_of_six(%x: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<5x6xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// 7 f32: one at a time.
func.func @seven(%x: tensor<7xf32>) -> tensor<7xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<7xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<7xf32>) outs(%e : tensor<7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<7xf32>
  return %y : tensor<7xf32>
}

// f64: vectors of 2.
func.func @doubles(%x: tensor<24xf64>) -> tensor<24xf64> {
  %three = arith.constant 3.0 : f64
  %e = tensor.empty() : tensor<24xf64>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<24xf64>) outs(%e : tensor<24xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.mulf %a, %three : f64
    linalg.yield %m : f64
  } -> tensor<24xf64>
  return %y : tensor<24xf64>
}

// i32 wrapping: vectors of 4.
func.func @ints(%x: tensor<4x96xi32>) -> tensor<4x96xi32> {
  %c = arith.constant 2000000000 : i32
  %e = tensor.empty() : tensor<4x96xi32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x96xi32>) outs(%e : tensor<4x96xi32>) {
  ^bb0(%a: i32, %o: i32):
    %m = arith.addi %a, %c : i32
    linalg.yield %m : i32
  } -> tensor<4x96xi32>
  return %y : tensor<4x96xi32>
}

// Columns 2 to 9 of rows of 10 (a view at offset 2, rows 10 apart):
// vectors of 2.
func.func @slice(%x: tensor<8x10xf32>) -> tensor<8x8xf32> {
  %two = arith.constant 2.0 : f32
  %v = tensor.extract_slice %x[0, 2] [8, 8] [1, 1] : tensor<8x10xf32> to tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
