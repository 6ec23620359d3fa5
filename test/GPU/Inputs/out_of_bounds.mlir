// Kernels written by hand with an index outside its dimension, for
// emulate-bounds.test; @shifted is the same kernel kept within its row.

// Thread t of block b reads column t + 1 of row b: thread 7 reads column 8
// of a row of 8 (on a GPU, the next row's first element, or past the
// buffer for the last row).
func.func @past_row(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %col = arith.addi %tx, %c1 : index
    %v = memref.load %m[%bx, %col] : memref<4x8xf32>
    memref.store %v, %y[%bx, %tx] : memref<4x8xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// The same, each thread reading column (t + 1) mod 8: in bounds.
func.func @shifted(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %next = arith.addi %tx, %c1 : index
    %col = arith.remui %next, %c8 : index
    %v = memref.load %m[%bx, %col] : memref<4x8xf32>
    memref.store %v, %y[%bx, %tx] : memref<4x8xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// Block b stores row b - 1: block 0 stores at row -1.
func.func @row_before(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %row = arith.subi %bx, %c1 : index
    %v = memref.load %m[%bx, %tx] : memref<4x8xf32>
    memref.store %v, %y[%row, %tx] : memref<4x8xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// Thread t of block b loads four elements from column 2 t of row b: the
// fourth thread's vector runs past the row.
func.func @vector_past_row(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %col = arith.muli %tx, %c2 : index
    %v = vector.load %m[%bx, %col] : memref<4x8xf32>, vector<4xf32>
    %h = vector.extract_strided_slice %v {offsets = [0], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
    vector.store %h, %y[%bx, %col] : memref<4x8xf32>, vector<2xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// Each thread of a block stores a word to shared memory, but the launch
// asks for 16 bytes: thread 4 stores bytes [16, 20).
func.func @shared_past_end(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %bytes = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %s = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%bx, %tx] : memref<4x8xf32>
    memref.store %v, %s[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
    %w = memref.load %s[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
    memref.store %w, %y[%bx, %tx] : memref<4x8xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// Two shared buffers of 4 f32 (bytes [0, 16) and [16, 32) of the block's
// 32): each thread stores its element to the first through a 2x2 view of
// it, so thread 4 stores bytes [16, 20), within the block's shared memory
// but in the second buffer.
func.func @shared_other_buffer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %bytes = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %b = memref.view %raw[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %a2 = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32, #gpu.address_space<workgroup>> into memref<2x2xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%bx, %tx] : memref<4x8xf32>
    %r = arith.divui %tx, %c2 : index
    %c = arith.remui %tx, %c2 : index
    memref.store %v, %a2[%r, %c] : memref<2x2xf32, #gpu.address_space<workgroup>>
    %w = memref.load %b[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %w, %y[%bx, %tx] : memref<4x8xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// Thread t of block b loads four elements from column 2 t of row b
// (within the row for threads 0 to 2), stating 16-byte alignment: thread
// 1's vector starts 8 bytes into a 16-byte line.
func.func @misaligned(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c1, %sz = %c1) {
    %col = arith.muli %tx, %c2 : index
    %v = vector.load %m[%bx, %col] {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
    %h = vector.extract_strided_slice %v {offsets = [0], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
    vector.store %h, %y[%bx, %col] : memref<4x8xf32>, vector<2xf32>
    gpu.terminator
  }
  %t = bufferization.to_tensor %y restrict : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
