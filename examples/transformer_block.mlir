// One pre-LN transformer encoder block with a regression loss, forward pass.
//
//   x      : 4x16x64  batch 4, sequence 16, model width 64     (input)
//   target : 4x16x64  regression target (float; role label)   (label)
//   parameters:
//     ln1_g, ln1_b : 64          first layer norm scale/shift
//     wq, wk, wv   : 64x64       Q/K/V projections,  bq, bk, bv : 64
//     wo           : 64x64       output projection,  bo         : 64
//     ln2_g, ln2_b : 64          second layer norm scale/shift
//     w_fc1        : 64x256      MLP up projection,  b_fc1      : 256
//     w_fc2        : 256x64      MLP down projection, b_fc2     : 64
//
//   h      = layer_norm(x)
//   q,k,v  = h @ w{q,k,v} + b{q,k,v}       on the 64x64 matrix of rows (4*16)
//   split heads (4 heads of 16):
//            64x64 -> 4x16x4x16 -> transpose [0,2,1,3] -> 4x4x16x16 -> 16x16x16
//   scores = (q @ k^T) * 0.25              0.25 = 1/sqrt(16), 16x16x16
//   p      = softmax(scores, axis -1)
//   ctx    = p @ v                         16x16x16
//   merge heads:
//            16x16x16 -> 4x4x16x16 -> transpose [0,2,1,3] -> 4x16x4x16 -> 64x64
//   y1     = x + (ctx @ wo + bo)           residual, 4x16x64
//   y2     = y1 + (gelu(layer_norm(y1) @ w_fc1 + b_fc1) @ w_fc2 + b_fc2)
//   loss   = mean((y2 - target)^2)         scalar f32
//
// Everything is fp32. The attention softmax, the layer norms and the loss are
// the ops a mixed-precision pass should keep in fp32; the matmuls and
// batch_matmuls are the Tensor-Core candidates.
//
// Run it (parse, verify and print) from the repository root with:
//
//   build/bin/mpt-opt examples/transformer_block.mlir
//   build/bin/mpt-opt examples/transformer_block.mlir --print-op-stats -o /dev/null

func.func @transformer_block(
    %x: tensor<4x16x64xf32> {mpt.role = #mpt.role<input>},
    %ln1_g: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %ln1_b: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %wq: tensor<64x64xf32> {mpt.role = #mpt.role<parameter>},
    %bq: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %wk: tensor<64x64xf32> {mpt.role = #mpt.role<parameter>},
    %bk: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %wv: tensor<64x64xf32> {mpt.role = #mpt.role<parameter>},
    %bv: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %wo: tensor<64x64xf32> {mpt.role = #mpt.role<parameter>},
    %bo: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %ln2_g: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %ln2_b: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %w_fc1: tensor<64x256xf32> {mpt.role = #mpt.role<parameter>},
    %b_fc1: tensor<256xf32> {mpt.role = #mpt.role<parameter>},
    %w_fc2: tensor<256x64xf32> {mpt.role = #mpt.role<parameter>},
    %b_fc2: tensor<64xf32> {mpt.role = #mpt.role<parameter>},
    %target: tensor<4x16x64xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  //===--- Attention sub-block -------------------------------------------===//

  // Pre-attention layer norm over the model dimension, then flatten the
  // batch and sequence dimensions into 64 rows.
  %h = mpt.layer_norm %x, %ln1_g, %ln1_b epsilon = 1.0e-5
      : (tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<4x16x64xf32>
  %h_rows = mpt.reshape %h : tensor<4x16x64xf32> to tensor<64x64xf32>

  // Q projection, split into 4 heads of 16: (batch*heads) x seq x head_dim.
  %q_lin = mpt.matmul %h_rows, %wq
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %q_rows = mpt.add %q_lin, %bq
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %q_split = mpt.reshape %q_rows : tensor<64x64xf32> to tensor<4x16x4x16xf32>
  %q_t = mpt.transpose %q_split perm = [0, 2, 1, 3]
      : tensor<4x16x4x16xf32> -> tensor<4x4x16x16xf32>
  %q = mpt.reshape %q_t : tensor<4x4x16x16xf32> to tensor<16x16x16xf32>

  // K projection, split the same way.
  %k_lin = mpt.matmul %h_rows, %wk
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %k_rows = mpt.add %k_lin, %bk
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %k_split = mpt.reshape %k_rows : tensor<64x64xf32> to tensor<4x16x4x16xf32>
  %k_t = mpt.transpose %k_split perm = [0, 2, 1, 3]
      : tensor<4x16x4x16xf32> -> tensor<4x4x16x16xf32>
  %k = mpt.reshape %k_t : tensor<4x4x16x16xf32> to tensor<16x16x16xf32>

  // V projection, split the same way.
  %v_lin = mpt.matmul %h_rows, %wv
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %v_rows = mpt.add %v_lin, %bv
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %v_split = mpt.reshape %v_rows : tensor<64x64xf32> to tensor<4x16x4x16xf32>
  %v_t = mpt.transpose %v_split perm = [0, 2, 1, 3]
      : tensor<4x16x4x16xf32> -> tensor<4x4x16x16xf32>
  %v = mpt.reshape %v_t : tensor<4x4x16x16xf32> to tensor<16x16x16xf32>

  // Scaled dot-product attention: softmax(Q K^T / sqrt(16)) V. The rank-0
  // scale broadcasts over the scores.
  %scores_raw = mpt.batch_matmul %q, %k transpose_b
      : (tensor<16x16x16xf32>, tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
  %scale = mpt.constant dense<0.25> : tensor<f32>
  %scores = mpt.mul %scores_raw, %scale
      : (tensor<16x16x16xf32>, tensor<f32>) -> tensor<16x16x16xf32>
  %probs = mpt.softmax %scores axis = -1 : tensor<16x16x16xf32>
  %ctx = mpt.batch_matmul %probs, %v
      : (tensor<16x16x16xf32>, tensor<16x16x16xf32>) -> tensor<16x16x16xf32>

  // Merge the heads back into 64 rows of width 64.
  %ctx_split = mpt.reshape %ctx : tensor<16x16x16xf32> to tensor<4x4x16x16xf32>
  %ctx_t = mpt.transpose %ctx_split perm = [0, 2, 1, 3]
      : tensor<4x4x16x16xf32> -> tensor<4x16x4x16xf32>
  %ctx_rows = mpt.reshape %ctx_t : tensor<4x16x4x16xf32> to tensor<64x64xf32>

  // Output projection and the first residual connection.
  %attn_lin = mpt.matmul %ctx_rows, %wo
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %attn_rows = mpt.add %attn_lin, %bo
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %attn = mpt.reshape %attn_rows : tensor<64x64xf32> to tensor<4x16x64xf32>
  %y1 = mpt.add %x, %attn
      : (tensor<4x16x64xf32>, tensor<4x16x64xf32>) -> tensor<4x16x64xf32>

  //===--- MLP sub-block -------------------------------------------------===//

  // Pre-MLP layer norm, 64 -> 256 with gelu, 256 -> 64.
  %m = mpt.layer_norm %y1, %ln2_g, %ln2_b epsilon = 1.0e-5
      : (tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<4x16x64xf32>
  %m_rows = mpt.reshape %m : tensor<4x16x64xf32> to tensor<64x64xf32>
  %fc1_lin = mpt.matmul %m_rows, %w_fc1
      : (tensor<64x64xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %fc1 = mpt.add %fc1_lin, %b_fc1
      : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %act = mpt.gelu %fc1 : tensor<64x256xf32>
  %fc2_lin = mpt.matmul %act, %w_fc2
      : (tensor<64x256xf32>, tensor<256x64xf32>) -> tensor<64x64xf32>
  %fc2_rows = mpt.add %fc2_lin, %b_fc2
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %mlp = mpt.reshape %fc2_rows : tensor<64x64xf32> to tensor<4x16x64xf32>

  // Second residual connection.
  %y2 = mpt.add %y1, %mlp
      : (tensor<4x16x64xf32>, tensor<4x16x64xf32>) -> tensor<4x16x64xf32>

  //===--- Loss ----------------------------------------------------------===//

  %loss = mpt.mse_loss %y2, %target
      : (tensor<4x16x64xf32>, tensor<4x16x64xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
