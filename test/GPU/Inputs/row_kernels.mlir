// Row reductions for emulate-row-types.test: one per accumulator width that
// mpt-rows-to-gpu's shuffles move (1, 16, 32 and 64 bits: one i32 word, or
// two for 64-bit values), with teams narrower than a warp, of one warp and
// wider than a warp (the warps' values in shared memory).
#rc = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>

// 64-bit integers, 7 rows of 300: teams of 64 threads (two warps), the
// words of a value in two shuffles, onto an initial value of 2^40 + 5.
func.func @sum_i64_wide(%x: tensor<7x300xi64>) -> tensor<7xi64> {
  %start = arith.constant 1099511627781 : i64
  %e = tensor.empty() : tensor<7xi64>
  %init = linalg.fill ins(%start : i64) outs(%e : tensor<7xi64>) -> tensor<7xi64>
  %r = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xi64>) outs(%init : tensor<7xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %s = arith.addi %acc, %in : i64
    linalg.yield %s : i64
  } -> tensor<7xi64>
  return %r : tensor<7xi64>
}

// f64 maxima of 5 rows of 12: teams of 16 threads, two a warp.
func.func @max_f64(%x: tensor<5x12xf64>) -> tensor<5xf64> {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<5xf64>
  %init = linalg.fill ins(%ninf : f64) outs(%e : tensor<5xf64>) -> tensor<5xf64>
  %r = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x12xf64>) outs(%init : tensor<5xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %m = arith.maximumf %acc, %in : f64
    linalg.yield %m : f64
  } -> tensor<5xf64>
  return %r : tensor<5xf64>
}

// Whether a row has an element above 2 (an i1 accumulator): 9 rows of 100,
// teams of 32 threads (a vector of 4 columns a lane, 25 lanes with one).
func.func @any_above(%x: tensor<9x100xf32>) -> tensor<9xi1> {
  %false = arith.constant false
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<9xi1>
  %init = linalg.fill ins(%false : i1) outs(%e : tensor<9xi1>) -> tensor<9xi1>
  %r = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<9x100xf32>) outs(%init : tensor<9xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %big = arith.cmpf ogt, %in, %two : f32
    %any = arith.ori %acc, %big : i1
    linalg.yield %any : i1
  } -> tensor<9xi1>
  return %r : tensor<9xi1>
}

// f16 minima of 6 rows of 704: teams of 128 threads (four warps) with a
// vector of 8 columns each (16 bytes), 2-byte values in shared memory.
func.func @min_f16_wide(%x: tensor<6x704xf16>) -> tensor<6xf16> {
  %inf = arith.constant 0x7C00 : f16
  %e = tensor.empty() : tensor<6xf16>
  %init = linalg.fill ins(%inf : f16) outs(%e : tensor<6xf16>) -> tensor<6xf16>
  %r = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x704xf16>) outs(%init : tensor<6xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %m = arith.minimumf %acc, %in : f16
    linalg.yield %m : f16
  } -> tensor<6xf16>
  return %r : tensor<6xf16>
}

// Signed i32 maxima of 3 rows of 6: teams of 8 threads, 16 a block.
func.func @max_i32(%x: tensor<3x6xi32>) -> tensor<3xi32> {
  %low = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<3xi32>
  %init = linalg.fill ins(%low : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x6xi32>) outs(%init : tensor<3xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %m = arith.maxsi %acc, %in : i32
    linalg.yield %m : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// A chain over rows: t = 3 x, its sum s per row, d = t - s as f64 (exact:
// |d| < 2^53). In rows of 100
// (teams of 32, 4 columns a lane) t stays in registers and is never stored
// (@chain_short), or is stored as a result too and still read from
// registers (@chain_kept); in rows of 3000 (teams of 256, 12 columns a
// lane) the lanes walk their columns in loops, through memory.
func.func @chain_short(%x: tensor<5x100xi64>) -> (tensor<5x100xf64>, tensor<5xi64>) {
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<5x100xi64>
  %t = linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x100xi64>) outs(%e : tensor<5x100xi64>) {
  ^bb0(%in: i64, %o: i64):
    %m = arith.muli %in, %three : i64
    linalg.yield %m : i64
  } -> tensor<5x100xi64>
  %es = tensor.empty() : tensor<5xi64>
  %init = linalg.fill ins(%zero : i64) outs(%es : tensor<5xi64>) -> tensor<5xi64>
  %s = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<5x100xi64>) outs(%init : tensor<5xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %a = arith.addi %acc, %in : i64
    linalg.yield %a : i64
  } -> tensor<5xi64>
  %e2 = tensor.empty() : tensor<5x100xf64>
  %d = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : tensor<5x100xi64>, tensor<5xi64>) outs(%e2 : tensor<5x100xf64>) {
  ^bb0(%in: i64, %sum: i64, %o: f64):
    %v = arith.subi %in, %sum : i64
    %f = arith.sitofp %v : i64 to f64
    linalg.yield %f : f64
  } -> tensor<5x100xf64>
  return %d, %s : tensor<5x100xf64>, tensor<5xi64>
}

func.func @chain_kept(%x: tensor<5x100xi64>) -> (tensor<5x100xi64>, tensor<5x100xf64>, tensor<5xi64>) {
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<5x100xi64>
  %t = linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x100xi64>) outs(%e : tensor<5x100xi64>) {
  ^bb0(%in: i64, %o: i64):
    %m = arith.muli %in, %three : i64
    linalg.yield %m : i64
  } -> tensor<5x100xi64>
  %es = tensor.empty() : tensor<5xi64>
  %init = linalg.fill ins(%zero : i64) outs(%es : tensor<5xi64>) -> tensor<5xi64>
  %s = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<5x100xi64>) outs(%init : tensor<5xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %a = arith.addi %acc, %in : i64
    linalg.yield %a : i64
  } -> tensor<5xi64>
  %e2 = tensor.empty() : tensor<5x100xf64>
  %d = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : tensor<5x100xi64>, tensor<5xi64>) outs(%e2 : tensor<5x100xf64>) {
  ^bb0(%in: i64, %sum: i64, %o: f64):
    %v = arith.subi %in, %sum : i64
    %f = arith.sitofp %v : i64 to f64
    linalg.yield %f : f64
  } -> tensor<5x100xf64>
  return %t, %d, %s : tensor<5x100xi64>, tensor<5x100xf64>, tensor<5xi64>
}

func.func @chain_long(%x: tensor<3x3000xi64>) -> (tensor<3x3000xf64>, tensor<3xi64>) {
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<3x3000xi64>
  %t = linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x3000xi64>) outs(%e : tensor<3x3000xi64>) {
  ^bb0(%in: i64, %o: i64):
    %m = arith.muli %in, %three : i64
    linalg.yield %m : i64
  } -> tensor<3x3000xi64>
  %es = tensor.empty() : tensor<3xi64>
  %init = linalg.fill ins(%zero : i64) outs(%es : tensor<3xi64>) -> tensor<3xi64>
  %s = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<3x3000xi64>) outs(%init : tensor<3xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %a = arith.addi %acc, %in : i64
    linalg.yield %a : i64
  } -> tensor<3xi64>
  %e2 = tensor.empty() : tensor<3x3000xf64>
  %d = linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : tensor<3x3000xi64>, tensor<3xi64>) outs(%e2 : tensor<3x3000xf64>) {
  ^bb0(%in: i64, %sum: i64, %o: f64):
    %v = arith.subi %in, %sum : i64
    %f = arith.sitofp %v : i64 to f64
    linalg.yield %f : f64
  } -> tensor<3x3000xf64>
  return %d, %s : tensor<3x3000xf64>, tensor<3xi64>
}

// Two reductions of teams of two warps (rows of 300): the row's maximum m,
// then the sum of x - m, both in shared slots, which the second reduction
// must not overwrite while a warp still reads the first's.
func.func @two_wide(%x: tensor<7x300xi64>) -> (tensor<7xi64>, tensor<7xi64>) {
  %lowest = arith.constant -9223372036854775808 : i64
  %zero = arith.constant 0 : i64
  %em = tensor.empty() : tensor<7xi64>
  %minit = linalg.fill ins(%lowest : i64) outs(%em : tensor<7xi64>) -> tensor<7xi64>
  %m = linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xi64>) outs(%minit : tensor<7xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %v = arith.maxsi %acc, %in : i64
    linalg.yield %v : i64
  } -> tensor<7xi64>
  %es = tensor.empty() : tensor<7xi64>
  %sinit = linalg.fill ins(%zero : i64) outs(%es : tensor<7xi64>) -> tensor<7xi64>
  %s = linalg.generic {indexing_maps = [#rc, #r, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<7x300xi64>, tensor<7xi64>) outs(%sinit : tensor<7xi64>) {
  ^bb0(%in: i64, %max: i64, %acc: i64):
    %d = arith.subi %in, %max : i64
    %v = arith.addi %acc, %d : i64
    linalg.yield %v : i64
  } -> tensor<7xi64>
  return %m, %s : tensor<7xi64>, tensor<7xi64>
}

