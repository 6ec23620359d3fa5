//===- Npy.h - reading and writing numpy .npy files -------------*- C++ -*-===//
//
// The .npy format (versions 1.0, 2.0 and 3.0): a magic string, a version, a
// header that is a Python dict literal with the keys 'descr', 'fortran_order'
// and 'shape', then the raw elements.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_NPY_H
#define MPT_TOOLS_MPT_RUN_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpt::run {

/// The contents of a C-ordered .npy file.
struct NpyArray {
  /// The numpy dtype string, e.g. "<f4".
  std::string descr;
  llvm::SmallVector<int64_t, 4> shape;
  /// The raw elements, exactly product(shape) * itemsize bytes.
  std::vector<char> data;
};

/// The item size of a dtype string such as "<f4" or "|u1", or 0 if it does
/// not end in a size.
unsigned getNpyItemSize(llvm::StringRef descr);

/// Reads the .npy file at `path`. Fails on unreadable files, malformed
/// headers, Fortran-ordered arrays and data of the wrong length.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Writes `data` as a C-ordered version 1.0 .npy file of dtype `descr` and
/// shape `shape`.
llvm::Error writeNpy(llvm::StringRef path, llvm::StringRef descr,
                     llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<char> data);

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_NPY_H
