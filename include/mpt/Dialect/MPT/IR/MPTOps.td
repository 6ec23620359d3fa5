//===- MPTOps.td - mpt dialect operations ------------------*- tablegen -*-===//
//
// Every op of the mpt dialect. Ops are pure and work on ranked tensors (but
// for one host-side query of the GPU, mpt.sm_count); the rules a user can
// break are checked by result-type inference (for ops whose result type
// follows from their operands) or by a verifier.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_MPTOPS_TD
#define MPT_DIALECT_MPT_IR_MPTOPS_TD

include "mpt/Dialect/MPT/IR/MPTBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mpt/Dialect/MPT/IR/PrecisionPolicyInterface.td"

/// Every mpt op is pure and has a precision class; the classes of all ops are
/// listed, with their reasons, in PrecisionPolicy.cpp. `policyOverrides`
/// names the interface methods with a default that the op overrides.
class MPT_Op<string mnemonic, list<Trait> traits = [],
             list<string> policyOverrides = []>
    : Op<MPT_Dialect, mnemonic, !listconcat(traits, [Pure,
        DeclareOpInterfaceMethods<MPT_PrecisionPolicyOpInterface,
                                  policyOverrides>])>;

/// An accumulator type for contractions: when set on an op whose operands are
/// of a narrower float type, products are summed in this type and the result
/// is rounded once to the result element type.
def MPT_AccTypeAttr : OptionalAttr<TypeAttrOf<MPT_Float>>;

//===----------------------------------------------------------------------===//
// Compute ops (Tensor Core candidates)
//===----------------------------------------------------------------------===//

def MPT_MatmulOp : MPT_Op<"matmul", [InferTypeOpAdaptor,
    AllElementTypesMatch<["lhs", "rhs", "result"]>], ["setAccumulatorType"]> {
  let summary = "Matrix product of two rank-2 tensors";
  let description = [{
    Computes `op(lhs) x op(rhs)` where `op` transposes its operand when
    `transpose_a` (for `lhs`) or `transpose_b` (for `rhs`) is present. With
    `lhs : MxK` and `rhs : KxN` the result is `MxN`.

    `acc(T)` names the accumulator type: products are summed in `T` and the
    result is rounded once to the result element type. The
    auto-mixed-precision pass sets `acc(f32)` on every matmul it moves to half
    precision.

    Example:
    ```mlir
    %y = mpt.matmul %x, %w transpose_b acc(f32)
        : (tensor<32x784xf16>, tensor<128x784xf16>) -> tensor<32x128xf16>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$lhs, MPT_FloatTensor:$rhs,
                   UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                   MPT_AccTypeAttr:$acc_type);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_BatchMatmulOp : MPT_Op<"batch_matmul", [InferTypeOpAdaptor,
    AllElementTypesMatch<["lhs", "rhs", "result"]>], ["setAccumulatorType"]> {
  let summary = "Batched matrix product";
  let description = [{
    Matrix products over leading batch dimensions: with `lhs : B...xMxK` and
    `rhs : B...xKxN` the result is `B...xMxN`. Both operands have the same
    rank (at least 3) and the same batch dimensions. `transpose_a`,
    `transpose_b` and `acc(T)` mean what they mean for `mpt.matmul`.

    Example (attention scores, `Q K^T`):
    ```mlir
    %s = mpt.batch_matmul %q, %k transpose_b
        : (tensor<8x64x32xf32>, tensor<8x64x32xf32>) -> tensor<8x64x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$lhs, MPT_FloatTensor:$rhs,
                   UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                   MPT_AccTypeAttr:$acc_type);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_Conv2DOp : MPT_Op<"conv2d", [InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "filter", "result"]>], ["setAccumulatorType"]> {
  let summary = "2-D convolution (NCHW/FCHW or NHWC/HWCF)";
  let description = [{
    A 2-D cross-correlation. With `layout<nchw>` (the default) the input is
    `N x C x H x W` and the filter `F x C/groups x KH x KW`; with
    `layout<nhwc>` the input is `N x H x W x C` and the filter
    `KH x KW x C/groups x F`. `stride` and `dilation` have one value per
    spatial dimension, `pad` four: `[top, bottom, left, right]` (zeros).
    `groups` divides both the input channels and the filters (`F`).
    The output spatial size is
    `(in + pad_low + pad_high - dilation * (k - 1) - 1) / stride + 1`.
    `acc(T)` is the accumulator type, as for `mpt.matmul`.

    Example:
    ```mlir
    %y = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1]
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$filter,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout,
      MPT_AccTypeAttr:$acc_type);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`layout` `` $layout^)? (`stride` $strides^)?
    (`pad` $padding^)? (`dilation` $dilation^)? (`groups` $groups^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_EmbeddingOp : MPT_Op<"embedding", [InferTypeOpAdaptor,
    AllElementTypesMatch<["table", "result"]>]> {
  let summary = "Embedding lookup: rows of a table selected by indices";
  let description = [{
    Gathers rows of `table : V x D` at the integer `indices`; the result has
    the shape of `indices` followed by `D`. Indices outside `[0, V)` give an
    unspecified row (they are not checked at run time).

    Example:
    ```mlir
    %e = mpt.embedding %table, %ids
        : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$table, MPT_IntegerTensor:$indices);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$table `,` $indices attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class MPT_BinaryOp<string mnemonic, string formula>
    : MPT_Op<mnemonic, [InferTypeOpAdaptor,
                        AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "Elementwise `" # formula # "` with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise. The operands have the same
    element type; their shapes broadcast as in numpy (aligned on the trailing
    dimension, a dimension of size 1 stretches), and the result has the
    broadcast shape.

    Example:
    ```mlir
    %z = mpt.}] # mnemonic # [{ %x, %b
        : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$lhs, MPT_FloatTensor:$rhs);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def MPT_AddOp : MPT_BinaryOp<"add", "lhs + rhs">;
def MPT_SubOp : MPT_BinaryOp<"sub", "lhs - rhs">;
def MPT_MulOp : MPT_BinaryOp<"mul", "lhs * rhs">;
def MPT_DivOp : MPT_BinaryOp<"div", "lhs / rhs">;
def MPT_MaxOp : MPT_BinaryOp<"max", "max(lhs, rhs)">;
def MPT_MinOp : MPT_BinaryOp<"min", "min(lhs, rhs)">;
def MPT_PowOp : MPT_BinaryOp<"pow", "lhs ^ rhs">;

class MPT_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : MPT_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType,
                                            Elementwise])> {
  let summary = "Elementwise `" # formula # "`";
  let description = [{
    Computes `}] # formula # [{` for every element; the result has the
    operand's type.

    Example:
    ```mlir
    %y = mpt.}] # mnemonic # [{ %x : tensor<32x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MPT_NegOp : MPT_UnaryOp<"neg", "-x">;
def MPT_AbsOp : MPT_UnaryOp<"abs", "|x|">;
def MPT_ExpOp : MPT_UnaryOp<"exp", "e^x">;
def MPT_LogOp : MPT_UnaryOp<"log", "ln(x)">;
def MPT_SqrtOp : MPT_UnaryOp<"sqrt", "sqrt(x)">;
def MPT_RsqrtOp : MPT_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def MPT_ReciprocalOp : MPT_UnaryOp<"reciprocal", "1 / x">;
def MPT_TanhOp : MPT_UnaryOp<"tanh", "tanh(x)">;
def MPT_SigmoidOp : MPT_UnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def MPT_ReluOp : MPT_UnaryOp<"relu", "max(x, 0)">;

def MPT_GeluOp : MPT_Op<"gelu", [SameOperandsAndResultType, Elementwise]> {
  let summary = "Elementwise Gaussian error linear unit";
  let description = [{
    Computes `x * Phi(x)` with `Phi` the standard normal CDF:
    `0.5 * x * (1 + erf(x / sqrt(2)))`, or with `approximate<tanh>`
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    Example:
    ```mlir
    %y = mpt.gelu %x approximate<tanh> : tensor<32x512xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input,
      DefaultValuedAttr<MPT_GeluApproximationAttr,
                        "::mpt::GeluApproximation::none">:$approximate);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input (`approximate` `` $approximate^)? attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Normalization and reductions
//===----------------------------------------------------------------------===//

class MPT_SoftmaxLikeOp<string mnemonic, string formula>
    : MPT_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "`" # formula # "` along one axis";
  let description = [{
    Computes `}] # formula # [{` along `axis` (default -1, the last
    dimension; negative axes count from the end), numerically stabilized by
    subtracting the maximum along the axis.

    Example:
    ```mlir
    %p = mpt.}] # mnemonic # [{ %logits axis = 1 : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input (`axis` `=` $axis^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

def MPT_SoftmaxOp : MPT_SoftmaxLikeOp<"softmax", "exp(x_i) / sum_j exp(x_j)">;
def MPT_LogSoftmaxOp : MPT_SoftmaxLikeOp<"log_softmax",
                                         "x_i - log(sum_j exp(x_j))">;

def MPT_LayerNormOp : MPT_Op<"layer_norm", [InferTypeOpAdaptor,
    AllElementTypesMatch<["scale", "bias"]>], ["isLowPrecisionOperand"]> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over the dimensions `[axis, rank)` (default: the last
    one) to zero mean and unit variance (biased variance, `epsilon` added
    before the square root), then applies the elementwise affine transform
    `scale * y + bias`. `scale` and `bias` have the shape of the normalized
    dimensions.

    `scale` and `bias` have the input's element type, or f32 with a narrower
    input (f16 activations, f32 parameters). Mean and variance are computed
    in f32 for f16, bf16 and f8 inputs, and the result, of the input's type,
    is rounded once.

    Example:
    ```mlir
    %y = mpt.layer_norm %x, %gamma, %beta epsilon = 1.0e-5
        : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$scale,
                   MPT_FloatTensor:$bias,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias (`axis` `=` $axis^)? (`epsilon` `=` $epsilon^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The first normalized dimension, in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

def MPT_BatchNormOp : MPT_Op<"batch_norm", [InferTypeOpAdaptor,
    AllElementTypesMatch<["scale", "bias"]>], ["isLowPrecisionOperand"]> {
  let summary = "Batch normalization with batch statistics (training mode)";
  let description = [{
    Normalizes every channel (dimension `axis`, default 1 as in NCHW) over all
    other dimensions with the statistics of the batch (biased variance,
    `epsilon` added before the square root), then applies `scale * y + bias`
    per channel. `scale` and `bias` are 1-D with one entry per channel.
    Running statistics for inference are not tracked by this op.

    `scale` and `bias` have the input's element type, or f32 with a narrower
    input (f16 activations, f32 parameters, as cuDNN's batch norm takes
    them). The batch statistics are computed in f32 for f16, bf16 and f8
    inputs, and the result, of the input's type, is rounded once.

    Example:
    ```mlir
    %y = mpt.batch_norm %x, %gamma, %beta
        : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$scale,
                   MPT_FloatTensor:$bias,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias (`axis` `=` $axis^)? (`epsilon` `=` $epsilon^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The channel axis, in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

class MPT_ReduceOp<string mnemonic, string what>
    : MPT_Op<mnemonic, [InferTypeOpAdaptor,
                        AllElementTypesMatch<["input", "result"]>]> {
  let summary = "The " # what # " over a set of axes";
  let description = [{
    Reduces `input` to the }] # what # [{ of its elements along `axes`
    (distinct, negative values count from the end). The reduced dimensions are
    removed, or kept with size 1 when `keep_dims` is present.

    Example:
    ```mlir
    %s = mpt.}] # mnemonic # [{ %x axes = [1] keep_dims
        : tensor<32x128xf32> -> tensor<32x1xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                   UnitAttr:$keep_dims);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keep_dims` $keep_dims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// The reduced axes in [0, rank), sorted.
    ::llvm::SmallVector<int64_t> getNormalizedAxes();
  }];
}

def MPT_ReduceSumOp : MPT_ReduceOp<"reduce_sum", "sum">;
def MPT_ReduceMeanOp : MPT_ReduceOp<"reduce_mean", "mean">;
def MPT_ReduceMaxOp : MPT_ReduceOp<"reduce_max", "maximum">;

class MPT_Pool2DOp<string mnemonic, string what, string note = "">
    : MPT_Op<mnemonic, [InferTypeOpAdaptor,
                        AllElementTypesMatch<["input", "result"]>]> {
  let summary = "2-D " # what # " pooling";
  let description = [{
    Slides a `kernel` window over the two spatial dimensions of a rank-4 input
    (`layout<nchw>` by default, or `layout<nhwc>`) with `stride` (default 1)
    and `pad` (`[top, bottom, left, right]`, default 0) and takes the }]
    # what # [{ of each window. }] # note # [{

    Example:
    ```mlir
    %y = mpt.}] # mnemonic # [{ %x kernel [2, 2] stride [2, 2]
        : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
  let results = (outs MPT_FloatTensor:$result);
}

def MPT_MaxPool2DOp : MPT_Pool2DOp<"max_pool2d", "maximum"> {
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout);
  let assemblyFormat = [{
    $input (`layout` `` $layout^)? `kernel` $kernel (`stride` $strides^)?
    (`pad` $padding^)? attr-dict `:` type($input) `->` type($result)
  }];
}

def MPT_AvgPool2DOp : MPT_Pool2DOp<"avg_pool2d", "average",
    "Padded elements are excluded from each average unless "
    "`count_include_pad` is present."> {
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout,
      UnitAttr:$count_include_pad);
  let assemblyFormat = [{
    $input (`layout` `` $layout^)? `kernel` $kernel (`stride` $strides^)?
    (`pad` $padding^)? (`count_include_pad` $count_include_pad^)? attr-dict
    `:` type($input) `->` type($result)
  }];
}

def MPT_GlobalAvgPoolOp : MPT_Op<"global_avg_pool", [InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Average over the spatial dimensions of an image batch";
  let description = [{
    Averages a rank-4 input over its two spatial dimensions and returns
    `N x C` (for either layout).

    Example:
    ```mlir
    %y = mpt.global_avg_pool %x : tensor<8x64x7x7xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`layout` `` $layout^)? attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def MPT_ReshapeOp : MPT_Op<"reshape", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Reinterpret a tensor with another shape";
  let description = [{
    Returns the elements of `input`, in row-major order, with the shape of the
    result type. Both have the same number of elements.

    Example:
    ```mlir
    %y = mpt.reshape %x : tensor<8x16x7x7xf32> to tensor<8x784xf32>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_TransposeOp : MPT_Op<"transpose", [InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`; `perm` is a
    permutation of `[0, rank)`.

    Example:
    ```mlir
    %y = mpt.transpose %x perm = [0, 2, 1, 3]
        : tensor<8x64x4x32xf32> -> tensor<8x4x64x32xf32>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def MPT_BroadcastOp : MPT_Op<"broadcast", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Broadcast a tensor to a larger shape (numpy rules)";
  let description = [{
    Stretches `input` to the result shape following numpy's rules: shapes are
    aligned on the trailing dimension, and each input dimension equals the
    result dimension or is 1.

    Example:
    ```mlir
    %y = mpt.broadcast %b : tensor<128xf32> to tensor<32x128xf32>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_ConcatOp : MPT_Op<"concat", [InferTypeOpAdaptor]> {
  let summary = "Concatenate tensors along one axis";
  let description = [{
    Joins the operands, which have the same element type, rank and sizes
    except along `axis`, in order along `axis`.

    Example:
    ```mlir
    %y = mpt.concat %a, %b axis = 1
        : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` functional-type($inputs, results)
  }];
  let hasFolder = 1;
}

def MPT_SliceOp : MPT_Op<"slice", [InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Extract a strided box of a tensor";
  let description = [{
    Result element `i` is input element `offsets + i * strides` (per
    dimension); the result has shape `sizes`. `strides` defaults to 1. The box
    lies inside the input.

    Example:
    ```mlir
    %y = mpt.slice %x offsets = [0, 0] sizes = [32, 1000]
        : tensor<32x1008xf32> -> tensor<32x1000xf32>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input, DenseI64ArrayAttr:$offsets,
                   DenseI64ArrayAttr:$sizes,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets `sizes` `=` $sizes
    (`strides` `=` $strides^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The strides, 1 per dimension when the attribute is absent.
    ::llvm::SmallVector<int64_t> getStridesOrOnes();
  }];
}

def MPT_PadOp : MPT_Op<"pad", [InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Pad a tensor with a constant";
  let description = [{
    Adds `low[i]` elements before and `high[i]` elements after dimension `i`
    (both non-negative), filled with `value` (default 0; may be an infinity).

    Example:
    ```mlir
    %y = mpt.pad %x low = [0, 0] high = [0, 8]
        : tensor<32x1000xf32> -> tensor<32x1008xf32>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = [{
    $input `low` `=` $low `high` `=` $high (`value` `=` $value^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_ConstantOp : MPT_Op<"constant", [ConstantLike,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor";
  let description = [{
    Produces the tensor `value` (a dense or splat elements attribute).

    Example:
    ```mlir
    %c = mpt.constant dense<0.5> : tensor<128xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def MPT_CastOp : MPT_Op<"cast", [], ["isLowPrecisionOperand"]> {
  let summary = "Convert the element type of a tensor";
  let description = [{
    Converts every element to the result element type, with the shape
    unchanged. Between float types the value is rounded to nearest, ties to
    even; values beyond the target's range become infinities (or NaN for
    f8E4M3FN, which has none). Float to integer truncates toward zero; integer
    to float rounds to nearest.

    A cast to the operand's own type folds away, and so does the inner cast of
    a chain whose intermediate type holds every value of the source exactly
    (`f16 -> f32 -> bf16` is `f16 -> bf16`); a round trip through a narrower
    type (`f32 -> f16 -> f32`) changes values and is kept.

    Example:
    ```mlir
    %h = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xf16>
    ```
  }];
  let arguments = (ins MPT_Tensor:$input);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def MPT_SoftmaxCrossEntropyOp : MPT_Op<"softmax_cross_entropy",
    [InferTypeOpAdaptorWithIsCompatible], ["widensLowPrecisionOperand"]> {
  let summary = "Mean softmax cross-entropy against integer class labels";
  let description = [{
    With `logits : B... x C` and integer `labels : B...` in `[0, C)`, returns
    the mean over `B...` of `-log_softmax(logits)[label]` as a rank-0 tensor
    of the logits' element type, or of f32 with narrower logits (f16 logits
    of a Tensor Core matmul, an f32 loss). The loss is computed in f32 for
    f16, bf16 and f8 logits, which are widened as they are read: no f32 copy
    of them is made. `classes = K` (K <= C) records that only
    the first K classes are real and the others are padding (masked to
    -inf by `mpt-pad-for-tensor-cores`); labels are then in `[0, K)`.

    Example:
    ```mlir
    %loss = mpt.softmax_cross_entropy %logits, %labels
        : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$logits, MPT_IntegerTensor:$labels,
                   OptionalAttr<I64Attr>:$num_classes);
  let results = (outs MPT_ScalarFloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`classes` `=` $num_classes^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class MPT_RegressionLossOp<string mnemonic, string formula>
    : MPT_Op<mnemonic, [InferTypeOpAdaptor,
                        AllElementTypesMatch<["input", "target", "result"]>]> {
  let summary = "Mean of `" # formula # "` over all elements";
  let description = [{
    Returns the mean over all elements of `}] # formula # [{` as a rank-0
    tensor; `input` and `target` have the same shape.

    Example:
    ```mlir
    %loss = mpt.}] # mnemonic # [{ %pred, %target
        : (tensor<32x1xf32>, tensor<32x1xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$target);
  let results = (outs MPT_ScalarFloatTensor:$result);
  let assemblyFormat = "$input `,` $target attr-dict `:` functional-type(operands, results)";
}

def MPT_MseLossOp : MPT_RegressionLossOp<"mse_loss", "(input - target)^2">;
def MPT_L1LossOp : MPT_RegressionLossOp<"l1_loss", "|input - target|">;

//===----------------------------------------------------------------------===//
// Backward ops: gradients that are not a composition of forward ops
//===----------------------------------------------------------------------===//

def MPT_ReluGradOp : MPT_Op<"relu_grad", [SameOperandsAndResultType]> {
  let summary = "Gradient of relu: the upstream gradient where the input is positive";
  let description = [{
    `grad * (input > 0)`: the gradient of `mpt.relu` with respect to its input,
    given the gradient `grad` of its result.

    Example:
    ```mlir
    %dx = mpt.relu_grad %dy, %x : tensor<32x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
}

def MPT_GeluGradOp : MPT_Op<"gelu_grad", [SameOperandsAndResultType]> {
  let summary = "Gradient of gelu";
  let description = [{
    `grad * gelu'(input)` for the exact (erf) gelu or, with
    `approximate<tanh>`, for the tanh approximation.

    Example:
    ```mlir
    %dx = mpt.gelu_grad %dy, %x : tensor<64x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input,
      DefaultValuedAttr<MPT_GeluApproximationAttr,
                        "::mpt::GeluApproximation::none">:$approximate);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input (`approximate` `` $approximate^)? attr-dict `:` type($input)
  }];
}

class MPT_SoftmaxGradLikeOp<string mnemonic, string forward, string formula>
    : MPT_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Gradient of " # forward;
  let description = [{
    Given the gradient `grad` of the result `result` of `mpt.}] # forward #
    [{` along `axis` (default -1; negative axes count from the end), returns
    the gradient with respect to its input: `}] # formula # [{`, the sum
    running along `axis`.

    The sum and the arithmetic are computed in f32 for f16, bf16 and f8
    operands, and the result is rounded once: between f16 batch matmuls
    (attention) the op reads and writes f16 and keeps no f32 copy of
    either operand.

    Example:
    ```mlir
    %dx = mpt.}] # mnemonic # [{ %dy, %y axis = 1 : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$result,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MPT_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $grad `,` $result (`axis` `=` $axis^)? attr-dict `:` type($input_grad)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

def MPT_SoftmaxGradOp : MPT_SoftmaxGradLikeOp<"softmax_grad", "softmax",
    "result * (grad - sum(grad * result))">;
def MPT_LogSoftmaxGradOp : MPT_SoftmaxGradLikeOp<"log_softmax_grad",
    "log_softmax", "grad - exp(result) * sum(grad)">;

def MPT_SoftmaxCrossEntropyGradOp : MPT_Op<"softmax_cross_entropy_grad",
    [], ["isLowPrecisionOperand"]> {
  let summary = "Gradient of the mean softmax cross-entropy with respect to the logits";
  let description = [{
    `grad * (softmax(logits) - one_hot(labels)) / B`, where `B` is the number
    of label entries and `grad` the rank-0 gradient of the loss.

    `grad` and the result have the logits' element type, or f32 with
    narrower logits (the loss scale of a mixed-precision step; a gradient
    that adaptive loss scaling scales before rounding it). The softmax and
    the product are computed in f32 for f16, bf16 and f8 logits, and the
    result is rounded once.

    Example:
    ```mlir
    %dl = mpt.softmax_cross_entropy_grad %logits, %labels, %dloss
        : (tensor<32x10xf32>, tensor<32xi64>, tensor<f32>) -> tensor<32x10xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$logits, MPT_IntegerTensor:$labels,
                   MPT_ScalarFloatTensor:$grad);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $grad attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_LayerNormGradOp : MPT_Op<"layer_norm_grad", [
    AllTypesMatch<["input", "grad", "input_grad"]>,
    AllTypesMatch<["scale", "scale_grad", "bias_grad"]>],
    ["isLowPrecisionOperand", "isLowPrecisionResult"]> {
  let summary = "Gradients of layer_norm";
  let description = [{
    Given the gradient `grad` of `mpt.layer_norm`'s result, returns the
    gradients with respect to its input, scale and bias (same `axis` and
    `epsilon` as the forward op; the statistics are recomputed).

    As for the forward op, `scale` may be f32 with a narrower input; the
    statistics and the sums are then computed in f32, `input_grad` is rounded
    once to the input's type and the scale and bias gradients stay f32.

    Example:
    ```mlir
    %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %gamma epsilon = 1.0e-5
        : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>)
          -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input,
                   MPT_FloatTensor:$scale,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs MPT_FloatTensor:$input_grad, MPT_FloatTensor:$scale_grad,
                      MPT_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $scale (`axis` `=` $axis^)? (`epsilon` `=` $epsilon^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The first normalized dimension, in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

class MPT_ConvBackwardOp<string mnemonic, string what, string lhs, string rhs>
    : MPT_Op<mnemonic, [AllElementTypesMatch<[lhs, rhs, "result"]>],
             ["setAccumulatorType"]> {
  let summary = "Gradient of conv2d with respect to its " # what;
  let hasVerifier = 1;
}

def MPT_Conv2DBackwardDataOp : MPT_ConvBackwardOp<"conv2d_backward_data",
    "input", "grad", "filter"> {
  let description = [{
    Given the gradient `grad` of an `mpt.conv2d` result and its filter,
    returns the gradient with respect to the convolution's input, whose shape
    is the result type. `stride`, `pad`, `dilation`, `groups`, `layout` and
    `acc(T)` mean what they mean for `mpt.conv2d`.

    Example:
    ```mlir
    %dx = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1]
        : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$filter,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout,
      MPT_AccTypeAttr:$acc_type);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $filter (`layout` `` $layout^)? (`stride` $strides^)?
    (`pad` $padding^)? (`dilation` $dilation^)? (`groups` $groups^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

def MPT_Conv2DBackwardFilterOp : MPT_ConvBackwardOp<"conv2d_backward_filter",
    "filter", "input", "grad"> {
  let description = [{
    Given the input of an `mpt.conv2d` and the gradient `grad` of its result,
    returns the gradient with respect to the filter, whose shape is the
    result type. Attributes as for `mpt.conv2d`.

    Example:
    ```mlir
    %dw = mpt.conv2d_backward_filter %x, %dy pad [1, 1, 1, 1]
        : (tensor<8x3x32x32xf32>, tensor<8x16x32x32xf32>) -> tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$grad,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout,
      MPT_AccTypeAttr:$acc_type);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad (`layout` `` $layout^)? (`stride` $strides^)?
    (`pad` $padding^)? (`dilation` $dilation^)? (`groups` $groups^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

def MPT_MaxPool2DGradOp : MPT_Op<"max_pool2d_grad",
    [AllTypesMatch<["input", "result"]>,
     AllElementTypesMatch<["grad", "input"]>]> {
  let summary = "Gradient of max_pool2d";
  let description = [{
    Routes each element of `grad` to the input elements equal to the maximum
    of its window (every tie receives it). Attributes as for
    `mpt.max_pool2d`.

    Example:
    ```mlir
    %dx = mpt.max_pool2d_grad %dy, %x kernel [2, 2] stride [2, 2]
        : (tensor<8x16x16x16xf32>, tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input (`layout` `` $layout^)? `kernel` $kernel
    (`stride` $strides^)? (`pad` $padding^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_AvgPool2DGradOp : MPT_Op<"avg_pool2d_grad",
    [AllElementTypesMatch<["grad", "result"]>]> {
  let summary = "Gradient of avg_pool2d";
  let description = [{
    Spreads each element of `grad` evenly over the input elements of its
    window (divided by the window's element count, padding excluded unless
    `count_include_pad`). The result type is the pooled input's type.
    Attributes as for `mpt.avg_pool2d`.

    Example:
    ```mlir
    %dx = mpt.avg_pool2d_grad %dy kernel [2, 2] stride [2, 2]
        : tensor<8x16x16x16xf32> -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<MPT_LayoutAttr, "::mpt::Layout::nchw">:$layout,
      UnitAttr:$count_include_pad);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad (`layout` `` $layout^)? `kernel` $kernel (`stride` $strides^)?
    (`pad` $padding^)? (`count_include_pad` $count_include_pad^)? attr-dict
    `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MPT_EmbeddingGradOp : MPT_Op<"embedding_grad",
    [AllElementTypesMatch<["grad", "result"]>]> {
  let summary = "Gradient of embedding: rows summed by index";
  let description = [{
    `result[r, d]` is the sum of `grad[i..., d]` over the positions `i...`
    where `indices[i...] == r`; the result type is the table's type.

    Example:
    ```mlir
    %dt = mpt.embedding_grad %dy, %ids
        : (tensor<8x16x64xf32>, tensor<8x16xi64>) -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_IntegerTensor:$indices);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_BatchNormGradOp : MPT_Op<"batch_norm_grad", [
    AllTypesMatch<["input", "grad", "input_grad"]>,
    AllTypesMatch<["scale", "scale_grad", "bias_grad"]>],
    ["isLowPrecisionOperand", "isLowPrecisionResult"]> {
  let summary = "Gradients of batch_norm (batch statistics)";
  let description = [{
    Given the gradient `grad` of `mpt.batch_norm`'s result, returns the
    gradients with respect to its input, scale and bias (same `axis` and
    `epsilon`; the batch statistics are recomputed).

    As for the forward op, `scale` may be f32 with a narrower input; the
    statistics and the sums are then computed in f32, `input_grad` is rounded
    once to the input's type and the scale and bias gradients stay f32.

    Example:
    ```mlir
    %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %gamma
        : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>)
          -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input,
                   MPT_FloatTensor:$scale,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs MPT_FloatTensor:$input_grad, MPT_FloatTensor:$scale_grad,
                      MPT_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $scale (`axis` `=` $axis^)? (`epsilon` `=` $epsilon^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The channel axis, in [0, rank).
    int64_t getNormalizedAxis();
  }];
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

def MPT_SgdUpdateOp : MPT_Op<"sgd_update", [AllTypesMatch<["param", "grad", "result"]>]> {
  let summary = "Stochastic gradient descent: param - lr * (grad + wd * param)";
  let description = [{
    One SGD step on a parameter: `param - lr * (grad + weight_decay * param)`.

    Example:
    ```mlir
    %w1 = mpt.sgd_update %w, %dw lr = 0.1 : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad, F64Attr:$lr,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $param `,` $grad `lr` `=` $lr (`weight_decay` `=` $weight_decay^)? attr-dict
    `:` type($param)
  }];
  let hasVerifier = 1;
}

def MPT_MomentumUpdateOp : MPT_Op<"momentum_update", [
    AllTypesMatch<["param", "grad", "velocity", "new_param", "new_velocity"]>]> {
  let summary = "SGD with momentum (PyTorch's form)";
  let description = [{
    `v' = momentum * v + (grad + weight_decay * param)`,
    `param' = param - lr * v'`; returns `(param', v')`.

    Example:
    ```mlir
    %w1, %v1 = mpt.momentum_update %w, %dw, %v lr = 0.1 momentum = 0.9
        : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                   MPT_FloatTensor:$velocity, F64Attr:$lr, F64Attr:$momentum,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs MPT_FloatTensor:$new_param,
                      MPT_FloatTensor:$new_velocity);
  let assemblyFormat = [{
    $param `,` $grad `,` $velocity `lr` `=` $lr `momentum` `=` $momentum
    (`weight_decay` `=` $weight_decay^)? attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

def MPT_AdamUpdateOp : MPT_Op<"adam_update", [
    AllTypesMatch<["param", "grad", "m", "v", "new_param", "new_m", "new_v"]>]> {
  let summary = "Adam with bias correction";
  let description = [{
    With `g = grad + weight_decay * param` and the step count `step` (a
    rank-0 f32 tensor, already counting this step):
    `m' = beta1 m + (1 - beta1) g`, `v' = beta2 v + (1 - beta2) g^2`,
    `param' = param - lr * (m' / (1 - beta1^step)) /
    (sqrt(v' / (1 - beta2^step)) + eps)`; returns `(param', m', v')`.

    Example:
    ```mlir
    %w1, %m1, %v1 = mpt.adam_update %w, %dw, %m, %v, %t lr = 0.001
        beta1 = 0.9 beta2 = 0.999 eps = 1.0e-8 : tensor<784x128xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                   MPT_FloatTensor:$m, MPT_FloatTensor:$v,
                   0DTensorOf<[F32]>:$step, F64Attr:$lr, F64Attr:$beta1,
                   F64Attr:$beta2, F64Attr:$eps,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs MPT_FloatTensor:$new_param, MPT_FloatTensor:$new_m,
                      MPT_FloatTensor:$new_v);
  let assemblyFormat = [{
    $param `,` $grad `,` $m `,` $v `,` $step `lr` `=` $lr `beta1` `=` $beta1
    `beta2` `=` $beta2 `eps` `=` $eps (`weight_decay` `=` $weight_decay^)?
    attr-dict `:` type($param) `,` type($step)
  }];
  let hasVerifier = 1;
}

def MPT_ClipByGlobalNormOp : MPT_Op<"clip_by_global_norm"> {
  let summary = "Scale gradients so that their global norm is at most max_norm";
  let description = [{
    With `norm = sqrt(sum over every element of every operand of g^2)`
    (squares summed in f32), returns each operand multiplied by
    `min(1, max_norm / (norm + 1e-6))`, computed in f32 and rounded once to
    the result type (PyTorch's `clip_grad_norm_`). Results have the shapes of
    the operands.

    Example:
    ```mlir
    %c0, %c1 = mpt.clip_by_global_norm %g0, %g1 max_norm = 1.0
        : (tensor<784x128xf32>, tensor<128xf32>)
        -> (tensor<784x128xf32>, tensor<128xf32>)
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$grads, F64Attr:$max_norm);
  let results = (outs Variadic<MPT_FloatTensor>:$results);
  let assemblyFormat = [{
    $grads `max_norm` `=` $max_norm attr-dict `:` functional-type($grads, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def MPT_BackwardSeedOp : MPT_Op<"backward_seed",
    [AllTypesMatch<["loss", "result"]>]> {
  let summary = "The seed d(loss)/d(loss) of a backward pass: ones";
  let description = [{
    Returns ones shaped like the scalar `loss` (its value is not read).
    `mpt-build-train-step` seeds the backward pass of a training step with it
    rather than with a constant, so that the seed survives canonicalization
    (a constant one folds into the ops that use it) and `mpt-loss-scaling`
    can replace it with the loss scale. It never folds; the lowering
    materializes ones.

    Example:
    ```mlir
    %seed = mpt.backward_seed %loss : tensor<f32>
    ```
  }];
  let arguments = (ins MPT_ScalarFloatTensor:$loss);
  let results = (outs MPT_ScalarFloatTensor:$result);
  let assemblyFormat = "$loss attr-dict `:` type($loss)";
}

def MPT_UnscaleAndCheckOp : MPT_Op<"unscale_and_check",
    [AttrSizedOperandSegments]> {
  let summary = "Unscale gradients by 1/scale in f32 and flag inf/NaN";
  let description = [{
    The fused unscale-and-check of loss scaling. `scales` holds one rank-0
    f32 scale for every gradient, or one per gradient (layer-wise scaling).
    `inv = 1 / scale` is computed in f64 and rounded once to f32; every
    element of a gradient is converted to f32 (exactly, for f16 and bf16) and
    multiplied by its `inv`. `found_inf` is true when any of these products
    is inf or NaN.

    With `max_norm`, the unscaled gradients are then clipped to that global
    norm as `mpt.clip_by_global_norm` does, and a non-finite norm sets
    `found_inf` too. Each result is rounded once to its element type; results
    have the shapes of the gradients.

    Example:
    ```mlir
    %u0, %u1, %found_inf = mpt.unscale_and_check %g0, %g1 scales(%scale)
        : (tensor<784x128xf16>, tensor<128xf16>, tensor<f32>)
        -> (tensor<784x128xf32>, tensor<128xf32>, tensor<i1>)
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$grads,
                   Variadic<MPT_F32Scalar>:$scales,
                   OptionalAttr<F64Attr>:$max_norm);
  let results = (outs Variadic<MPT_FloatTensor>:$unscaled,
                      MPT_I1Scalar:$found_inf);
  let assemblyFormat = [{
    $grads `scales` `(` $scales `)` (`max_norm` `=` $max_norm^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MPT_LayerScaleOp : MPT_Op<"layer_scale"> {
  let summary = "Per-layer loss scale of adaptive loss scaling (Zhao et al.)";
  let description = [{
    The factor by which `mpt-loss-scaling{mode=adaptive}` multiplies the
    gradient `grad` (which already carries the loss scale `scale`) before a
    low-precision contraction with `other` over `fan_in` products, following
    Zhao et al. 2019 ("Adaptive Loss Scaling for Mixed Precision Training",
    the `approx_range` method of their code). With the means and standard
    deviations of `grad` and `other` (in f32):

    - `sigma = sqrt((sd_g^2 + mean_g^2) (sd_o^2 + mean_o^2) * fan_in / 2)`,
      the spread of the products' sums;
    - `lower = max(1, min_value / (1.2533e-3 * sigma))`: at most 0.1% of
      them fall below the smallest subnormal (`min_value`);
    - `upper = max_value / (fan_in * max|grad| * max|other|)`: no sum
      overflows;
    - `alpha = min(lower, upper, max_scale / scale)`, 1 when `sigma` or the
      maxima are 0 or not finite, rounded down to a power of two.

    `min_value` and `max_value` are the low type's smallest subnormal and
    largest finite value. The result is a rank-0 f32 tensor.

    Example:
    ```mlir
    %alpha = mpt.layer_scale %g, %w, %scale fan_in = 128 min_value = 5.9604644775390625E-8
        max_value = 65504.0 max_scale = 16777216.0
        : tensor<32x128xf32>, tensor<784x128xf16>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$other,
                   MPT_F32Scalar:$scale, I64Attr:$fan_in,
                   F64Attr:$min_value, F64Attr:$max_value, F64Attr:$max_scale);
  let results = (outs MPT_F32Scalar:$result);
  let assemblyFormat = [{
    $grad `,` $other `,` $scale `fan_in` `=` $fan_in `min_value` `=` $min_value
    `max_value` `=` $max_value `max_scale` `=` $max_scale attr-dict `:`
    type($grad) `,` type($other)
  }];
  let hasVerifier = 1;
}

def MPT_SelectOp : MPT_Op<"select", [AllTypesMatch<["true_value",
    "false_value", "result"]>]> {
  let summary = "Choose between two tensors by a condition";
  let description = [{
    Element `i` of the result is `true_value[i]` where `condition` (a rank-0
    `i1` tensor, or one of the values' shape) is true and `false_value[i]`
    elsewhere; values are returned bit for bit. Loss scaling selects the old
    parameters and optimizer state when a step overflowed.

    Example:
    ```mlir
    %w2 = mpt.select %found_inf, %w, %w1 : tensor<i1>, tensor<784x128xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition, MPT_Tensor:$true_value,
                   MPT_Tensor:$false_value);
  let results = (outs MPT_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_UpdateScaleOp : MPT_Op<"update_scale", [
    ]> {
  let summary = "Dynamic loss scale update (GradScaler with hysteresis)";
  let description = [{
    The state machine of dynamic loss scaling. `growth_tracker` counts the
    good steps since the scale last changed; `hysteresis_tracker` counts down
    the overflows still tolerated (it starts at `hysteresis`).

    - `found_inf`: `growth_tracker = 0`, `hysteresis_tracker -= 1` (not below
      0); when it reaches 0, `scale = max(scale * backoff_factor, min_scale)`.
    - otherwise: `growth_tracker += 1`; when it reaches `growth_interval`,
      `scale = min(scale * growth_factor, max_scale)`, `growth_tracker = 0`
      and `hysteresis_tracker = hysteresis`.

    With `hysteresis = 1` this is PyTorch's `GradScaler` (plus the bounds);
    larger values are Megatron-LM's and DeepSpeed's hysteresis. Products are
    computed in f64 and rounded once to f32.

    Example:
    ```mlir
    %s1, %g1, %h1 = mpt.update_scale %s, %g, %h, %found_inf
        growth_factor = 2.0 backoff_factor = 0.5 growth_interval = 2000
        hysteresis = 1 min_scale = 1.0 max_scale = 16777216.0
    ```
  }];
  let arguments = (ins MPT_F32Scalar:$scale,
                   MPT_I32Scalar:$growth_tracker,
                   MPT_I32Scalar:$hysteresis_tracker,
                   MPT_I1Scalar:$found_inf, F64Attr:$growth_factor,
                   F64Attr:$backoff_factor, I64Attr:$growth_interval,
                   I64Attr:$hysteresis, F64Attr:$min_scale,
                   F64Attr:$max_scale);
  let results = (outs MPT_F32Scalar:$new_scale,
                      MPT_I32Scalar:$new_growth_tracker,
                      MPT_I32Scalar:$new_hysteresis_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $hysteresis_tracker `,` $found_inf
    `growth_factor` `=` $growth_factor `backoff_factor` `=` $backoff_factor
    `growth_interval` `=` $growth_interval `hysteresis` `=` $hysteresis
    `min_scale` `=` $min_scale `max_scale` `=` $max_scale attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// GPU host code
//===----------------------------------------------------------------------===//

def MPT_SmCountOp : MPT_Op<"sm_count"> {
  let summary = "The number of streaming multiprocessors of the GPU, at run "
                "time";
  let description = [{
    Host code that launches GPU kernels: the multiprocessor (SM) count of
    the device the kernels run on, read when the program runs rather than
    assumed when it is compiled. `mpt-linalg-to-tensor-cores` sizes the grid
    of a persistent wgmma kernel with it (a block per SM, up to the tiles),
    so that a kernel compiled with `sms=132` (H100/H200 SXM) neither runs a
    second wave of blocks on a GPU with fewer SMs (H100 PCIe: 114) nor
    leaves SMs idle on one with more.

    With `cluster N` (N > 1; thread-block clusters, sm_90), the SMs that
    clusters of N blocks fill with a block each: N times the clusters that
    the device runs at once. That can be fewer than the SM count rounded
    down to N, since a cluster's blocks run in one GPC (graphics processing
    cluster) and a GPC's SMs need not be a multiple of N; a persistent grid
    of more clusters would run the excess as a second wave.

    The count is a property of the device, fixed while the program runs:
    the op has no operands and no effects, and two of them with the same
    `cluster` are the same value. `mpt-lower-sm-count` lowers it to a call
    of the mpt runtime (`lib/Runtime/`): `mgpuDeviceMultiprocessorCount`,
    or `mgpuDeviceClusterMultiprocessorCount` (which asks the driver's
    `cuOccupancyMaxActiveClusters`) with `cluster`; or to a constant for an
    emulated device. It is host code: inside a GPU kernel (`gpu.launch`,
    `gpu.func`, `gpu.module`) it is an error.

    Example:
    ```mlir
    %sms = mpt.sm_count
    %in_clusters_of_4 = mpt.sm_count cluster 4
    ```
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "1">:$cluster);
  let results = (outs Index:$result);
  let assemblyFormat = "(`cluster` $cluster^)? attr-dict";
  let hasVerifier = 1;
}

#endif // MPT_DIALECT_MPT_IR_MPTOPS_TD
