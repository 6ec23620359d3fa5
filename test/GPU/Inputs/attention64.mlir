// A self-attention block at the shape where wgmma reads the head merge in
// place (TMA boxes): batch 2, sequence 64, width 128, 2 heads of 64; Q, K
// and V projections split into heads, softmax(Q K^T / 8) V, heads merged,
// output projection, residual, mean squared error against a target.
func.func @attention(
    %x: tensor<2x64x128xf32> {mpt.role = #mpt.role<input>},
    %wq: tensor<128x128xf32> {mpt.role = #mpt.role<parameter>},
    %wk: tensor<128x128xf32> {mpt.role = #mpt.role<parameter>},
    %wv: tensor<128x128xf32> {mpt.role = #mpt.role<parameter>},
    %wo: tensor<128x128xf32> {mpt.role = #mpt.role<parameter>},
    %bo: tensor<128xf32> {mpt.role = #mpt.role<parameter>},
    %target: tensor<2x64x128xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %rows = mpt.reshape %x : tensor<2x64x128xf32> to tensor<128x128xf32>
  %q_rows = mpt.matmul %rows, %wq : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %q4 = mpt.reshape %q_rows : tensor<128x128xf32> to tensor<2x64x2x64xf32>
  %qt = mpt.transpose %q4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %q = mpt.reshape %qt : tensor<2x2x64x64xf32> to tensor<4x64x64xf32>
  %k_rows = mpt.matmul %rows, %wk : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %k4 = mpt.reshape %k_rows : tensor<128x128xf32> to tensor<2x64x2x64xf32>
  %kt = mpt.transpose %k4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %k = mpt.reshape %kt : tensor<2x2x64x64xf32> to tensor<4x64x64xf32>
  %v_rows = mpt.matmul %rows, %wv : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %v4 = mpt.reshape %v_rows : tensor<128x128xf32> to tensor<2x64x2x64xf32>
  %vt = mpt.transpose %v4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %v = mpt.reshape %vt : tensor<2x2x64x64xf32> to tensor<4x64x64xf32>
  %s_raw = mpt.batch_matmul %q, %k transpose_b : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %scale = mpt.constant dense<0.125> : tensor<f32>
  %s = mpt.mul %s_raw, %scale : (tensor<4x64x64xf32>, tensor<f32>) -> tensor<4x64x64xf32>
  %p = mpt.softmax %s axis = -1 : tensor<4x64x64xf32>
  %ctx = mpt.batch_matmul %p, %v : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %c4 = mpt.reshape %ctx : tensor<4x64x64xf32> to tensor<2x2x64x64xf32>
  %ct = mpt.transpose %c4 perm = [0, 2, 1, 3] : tensor<2x2x64x64xf32> -> tensor<2x64x2x64xf32>
  %merged = mpt.reshape %ct : tensor<2x64x2x64xf32> to tensor<128x128xf32>
  %o_lin = mpt.matmul %merged, %wo : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %o_rows = mpt.add %o_lin, %bo : (tensor<128x128xf32>, tensor<128xf32>) -> tensor<128x128xf32>
  %o = mpt.reshape %o_rows : tensor<128x128xf32> to tensor<2x64x128xf32>
  %y = mpt.add %x, %o : (tensor<2x64x128xf32>, tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  %loss = mpt.mse_loss %y, %target : (tensor<2x64x128xf32>, tensor<2x64x128xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
