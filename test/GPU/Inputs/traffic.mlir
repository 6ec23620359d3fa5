// Kernels for emulate-traffic.test, whose device memory traffic is known.
#rc = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>

// One SIMT kernel: 1000 f32 loaded, 1000 stored.
func.func @double(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<1000xf32>
  return %y : tensor<1000xf32>
}

// A softmax of 6 rows of 64 (f32): one row kernel, teams of 32 lanes, two
// columns a lane; the exponentials go to a buffer of their own (f16: not
// the result's).
func.func @softmax(%x: tensor<6x64xf32>) -> tensor<6x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<6xf32>
  %maxinit = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x64xf32>) outs(%maxinit : tensor<6xf32>) {
  ^bb0(%a: f32, %m: f32):
    %n = arith.maximumf %a, %m : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %e1 = tensor.empty() : tensor<6x64xf16>
  %exp = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<6x64xf32>, tensor<6xf32>) outs(%e1 : tensor<6x64xf16>) {
  ^bb0(%a: f32, %m: f32, %o: f16):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<6x64xf16>
  %e2 = tensor.empty() : tensor<6xf32>
  %suminit = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<6x64xf16>) outs(%suminit : tensor<6xf32>) {
  ^bb0(%a: f16, %s: f32):
    %w = arith.extf %a : f16 to f32
    %n = arith.addf %w, %s : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  %e3 = tensor.empty() : tensor<6x64xf32>
  %y = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<6x64xf16>, tensor<6xf32>) outs(%e3 : tensor<6x64xf32>) {
  ^bb0(%a: f16, %s: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %q = arith.divf %w, %s : f32
    linalg.yield %q : f32
  } -> tensor<6x64xf32>
  return %y : tensor<6x64xf32>
}

// A sum of each row, the mean (an op over the rows alone) and the centered
// rows; the mean is returned too.
func.func @centered(%x: tensor<6x64xf32>) -> (tensor<6xf32>, tensor<6x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 0.015625 : f32
  %e0 = tensor.empty() : tensor<6xf32>
  %suminit = linalg.fill ins(%zero : f32) outs(%e0 : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x64xf32>) outs(%suminit : tensor<6xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<6xf32>
  %e1 = tensor.empty() : tensor<6xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<6xf32>) outs(%e1 : tensor<6xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.mulf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<6xf32>
  %e2 = tensor.empty() : tensor<6x64xf32>
  %c = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<6x64xf32>, tensor<6xf32>) outs(%e2 : tensor<6x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<6x64xf32>
  return %mean, %c : tensor<6xf32>, tensor<6x64xf32>
}

// An f32 matmul of 64 x 64 x 64: the tiled SIMT kernel (one block of 64 x
// 64, K in 4 steps of 16), after the zero fill of C.
func.func @gemm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// An f16 matmul of 128 x 128 x 64 rounded to f16: the Tensor Core kernels
// copy A and B to shared memory asynchronously (cp.async on sm_80, TMA on
// sm_90a) and store the rounded products from registers.
func.func @gemm16(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  return %c : tensor<128x128xf16>
}
