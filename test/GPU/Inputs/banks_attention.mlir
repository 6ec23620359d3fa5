// A self-attention block with one head of 8 (from step_sweep.py, seed 2,
// case 43), for emulate-banks.test: its fp32 step with tf32 matmuls stages
// tiles whose rows are M or N and tiles whose rows are K, 8 to 32 wide.
func.func @model(%x: tensor<1x32x8xf32> {mpt.role = #mpt.role<input>},
    %target: tensor<1x32x8xf32> {mpt.role = #mpt.role<label>},
    %g: tensor<8xf32> {mpt.role = #mpt.role<parameter>},
    %s: tensor<8xf32> {mpt.role = #mpt.role<parameter>},
    %wq: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
    %bq: tensor<8xf32> {mpt.role = #mpt.role<parameter>},
    %wk: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
    %wv: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
    %bv: tensor<8xf32> {mpt.role = #mpt.role<parameter>},
    %wo: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
    %bo: tensor<8xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.layer_norm %x, %g, %s epsilon = 1.0e-5 : (tensor<1x32x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x32x8xf32>
  %h_rows = mpt.reshape %h : tensor<1x32x8xf32> to tensor<32x8xf32>
  %q_lin = mpt.matmul %h_rows, %wq : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %q_rows = mpt.add %q_lin, %bq : (tensor<32x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %q_split = mpt.reshape %q_rows : tensor<32x8xf32> to tensor<1x32x1x8xf32>
  %q_t = mpt.transpose %q_split perm = [0, 2, 1, 3] : tensor<1x32x1x8xf32> -> tensor<1x1x32x8xf32>
  %q = mpt.reshape %q_t : tensor<1x1x32x8xf32> to tensor<1x32x8xf32>
  %k_lin = mpt.matmul %h_rows, %wk : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %k_split = mpt.reshape %k_lin : tensor<32x8xf32> to tensor<1x32x1x8xf32>
  %k_t = mpt.transpose %k_split perm = [0, 2, 1, 3] : tensor<1x32x1x8xf32> -> tensor<1x1x32x8xf32>
  %k = mpt.reshape %k_t : tensor<1x1x32x8xf32> to tensor<1x32x8xf32>
  %v_lin = mpt.matmul %h_rows, %wv : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %v_rows = mpt.add %v_lin, %bv : (tensor<32x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %v_split = mpt.reshape %v_rows : tensor<32x8xf32> to tensor<1x32x1x8xf32>
  %v_t = mpt.transpose %v_split perm = [0, 2, 1, 3] : tensor<1x32x1x8xf32> -> tensor<1x1x32x8xf32>
  %v = mpt.reshape %v_t : tensor<1x1x32x8xf32> to tensor<1x32x8xf32>
  %raw = mpt.batch_matmul %q, %k transpose_b : (tensor<1x32x8xf32>, tensor<1x32x8xf32>) -> tensor<1x32x32xf32>
  %scale = mpt.constant dense<0.3535533905932738> : tensor<f32>
  %scores = mpt.mul %raw, %scale : (tensor<1x32x32xf32>, tensor<f32>) -> tensor<1x32x32xf32>
  %probs = mpt.softmax %scores axis = -1 : tensor<1x32x32xf32>
  %ctx = mpt.batch_matmul %probs, %v : (tensor<1x32x32xf32>, tensor<1x32x8xf32>) -> tensor<1x32x8xf32>
  %ctx_split = mpt.reshape %ctx : tensor<1x32x8xf32> to tensor<1x1x32x8xf32>
  %ctx_t = mpt.transpose %ctx_split perm = [0, 2, 1, 3] : tensor<1x1x32x8xf32> -> tensor<1x32x1x8xf32>
  %ctx_rows = mpt.reshape %ctx_t : tensor<1x32x1x8xf32> to tensor<32x8xf32>
  %o_lin = mpt.matmul %ctx_rows, %wo : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %o_rows = mpt.add %o_lin, %bo : (tensor<32x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %o = mpt.reshape %o_rows : tensor<32x8xf32> to tensor<1x32x8xf32>
  %y = mpt.add %x, %o : (tensor<1x32x8xf32>, tensor<1x32x8xf32>) -> tensor<1x32x8xf32>
  %loss = mpt.mse_loss %y, %target : (tensor<1x32x8xf32>, tensor<1x32x8xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
