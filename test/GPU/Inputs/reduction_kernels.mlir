// Whole-tensor reductions for emulate-reductions.test: one per combining op
// and accumulator type that mpt-reductions-to-gpu takes, with shapes that
// give one block, several blocks, a partial last stride and (with a small
// `sms`) threads that take many strides.
#id1 = affine_map<(d0) -> (d0)>
#to0 = affine_map<(d0) -> ()>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#to0_3 = affine_map<(d0, d1, d2) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#to0_2 = affine_map<(d0, d1) -> ()>

// 2^20 elements: 512 blocks (32 with sms=4, 128 strides per thread).
func.func @sum_big(%x: tensor<1048576xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<1048576xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Three loops (delinearized indices), 24576 elements: 12 blocks.
func.func @min_3d(%x: tensor<16x32x48xf32>) -> tensor<f32> {
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%inf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id3, #to0_3], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : tensor<16x32x48xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.minimumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// A product of 4096 factors near 1: 2 blocks.
func.func @prod(%x: tensor<4096xf32>) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %acc, %in : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Whether any element exceeds its column's limit plus its row index (a
// broadcast input, linalg.index, an i1 accumulator): 64 x 512, 16 blocks.
func.func @any_above(%x: tensor<64x512xf32>, %limit: tensor<512xf32>) -> tensor<i1> {
  %false = arith.constant false
  %e = tensor.empty() : tensor<i1>
  %init = linalg.fill ins(%false : i1) outs(%e : tensor<i1>) -> tensor<i1>
  %r = linalg.generic {indexing_maps = [#id2, #col, #to0_2], iterator_types = ["reduction", "reduction"]}
      ins(%x, %limit : tensor<64x512xf32>, tensor<512xf32>) outs(%init : tensor<i1>) {
  ^bb0(%in: f32, %l: f32, %acc: i1):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %lim = arith.addf %l, %fi : f32
    %big = arith.cmpf ogt, %in, %lim : f32
    %any = arith.ori %acc, %big : i1
    linalg.yield %any : i1
  } -> tensor<i1>
  return %r : tensor<i1>
}

// Signed integer maximum of 100000 elements (not a multiple of the 256
// threads of a block): 49 blocks.
func.func @max_i32(%x: tensor<100000xi32>) -> tensor<i32> {
  %low = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%low : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<100000xi32>) outs(%init : tensor<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %m = arith.maxsi %acc, %in : i32
    linalg.yield %m : i32
  } -> tensor<i32>
  return %r : tensor<i32>
}

// An exact i64 sum (8-byte accumulators in shared memory) onto an initial
// value that is an argument (not a fill): 30000 elements, 15 blocks.
func.func @sum_i64(%x: tensor<30000xi64>, %init: tensor<i64>) -> tensor<i64> {
  %r = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<30000xi64>) outs(%init : tensor<i64>) {
  ^bb0(%in: i64, %acc: i64):
    %s = arith.addi %acc, %in : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// An f16 accumulator (2-byte values in shared memory): 2048 elements, one
// block.
func.func @sum_f16(%x: tensor<2048xf16>) -> tensor<f16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<f16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %r = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<2048xf16>) outs(%init : tensor<f16>) {
  ^bb0(%in: f16, %acc: f16):
    %s = arith.addf %acc, %in : f16
    linalg.yield %s : f16
  } -> tensor<f16>
  return %r : tensor<f16>
}

// Two reductions of one input (a sum of squares and a maximum magnitude)
// share a kernel (blocks [0, 32) and [32, 64)).
func.func @two(%x: tensor<65536xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<65536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %m = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<65536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %abs = math.absf %in : f32
    %a = arith.maximumf %acc, %abs : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}

// A sum of x * y^T * s: x (f16) read along the last loop in vectors of 8,
// y (f32) across it one element each, s (indexed by the first loop) once
// per vector.
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @mixed_loads(%x: tensor<64x32xf16>, %y: tensor<32x64xf32>, %s: tensor<64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id2, #tr2, #row2, #to0_2], iterator_types = ["reduction", "reduction"]}
      ins(%x, %y, %s : tensor<64x32xf16>, tensor<32x64xf32>, tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f16, %b: f32, %c: f32, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %p = arith.mulf %w, %b : f32
    %q = arith.mulf %p, %c : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
