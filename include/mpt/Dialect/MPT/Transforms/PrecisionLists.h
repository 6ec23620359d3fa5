//===- PrecisionLists.h - user overrides of the class lists -----*- C++ -*-===//
//
// The `lists=` file of mpt-auto-mixed-precision: JSON with, per class, op
// names to add to it or remove from it:
//
//   {"deny": {"add": ["mpt.gelu"]}, "allow": {"remove": ["mpt.conv2d"]}}
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_PRECISIONLISTS_H
#define MPT_DIALECT_MPT_TRANSFORMS_PRECISIONLISTS_H

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <optional>
#include <string>

namespace mpt {

class PrecisionLists {
public:
  /// Reads and checks `path`. On failure, `error` holds a message that names
  /// the file and the line.
  static llvm::FailureOr<PrecisionLists> load(llvm::StringRef path,
                                              std::string &error);

  /// The class of op `name` given its default class (std::nullopt: no
  /// policy). An op added to a class gets it; an op removed from its default
  /// class has no policy.
  std::optional<PrecisionClass>
  apply(llvm::StringRef name, std::optional<PrecisionClass> byDefault) const;

private:
  llvm::StringMap<PrecisionClass> added;
  llvm::StringMap<llvm::SmallVector<PrecisionClass, 1>> removed;
};

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_PRECISIONLISTS_H
