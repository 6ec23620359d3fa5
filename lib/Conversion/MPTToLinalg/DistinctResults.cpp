//===- DistinctResults.cpp - mpt-distinct-results -------------------------===//
//
// A copy for each result of a function that repeats an earlier result, so
// that bufferization gives every result a buffer of its own.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mpt {
#define GEN_PASS_DEF_DISTINCTRESULTS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct DistinctResultsPass
    : public mpt::impl::DistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &result : ret->getOpOperands()) {
        Value value = result.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || isa<BlockArgument>(value) || seen.insert(value).second)
          continue;
        // A copy takes its sizes from the value copied.
        OpBuilder b(ret);
        result.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, ValueRange(), /*copy=*/value));
      }
    });
  }
};

} // namespace
