// A module whose only function is private (for errors-module.test).
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mpt.relu %x : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
