//===- Npy.cpp - reading and writing numpy .npy files ---------------------===//

#include "Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mpt::run;

static constexpr llvm::StringLiteral kMagic("\x93NUMPY");

/// An error about the file `path`.
static llvm::Error makeError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

/// A shape as Python writes a tuple: "()", "(5,)", "(2, 3)".
static std::string formatPythonTuple(llvm::ArrayRef<int64_t> shape) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "(";
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return result;
}

unsigned mpt::run::getNpyItemSize(llvm::StringRef descr) {
  unsigned size = 0;
  if (descr.size() < 3 || descr.drop_front(2).getAsInteger(10, size))
    return 0;
  return size;
}

namespace {
/// A cursor over the header dict, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  explicit HeaderParser(llvm::StringRef text) : text(text) {}

  /// Parses the whole dict into `array` and `fortranOrder`; returns an error
  /// message or "".
  std::string parse(NpyArray &array, bool &fortranOrder) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!consume('{'))
      return "expected '{'";
    while (!consume('}')) {
      std::string key;
      if (!parseString(key))
        return "expected a quoted key";
      if (!consume(':'))
        return "expected ':' after '" + key + "'";
      if (key == "descr") {
        if (!parseString(array.descr))
          return "expected a quoted 'descr'";
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (consumeWord("True"))
          fortranOrder = true;
        else if (consumeWord("False"))
          fortranOrder = false;
        else
          return "expected True or False for 'fortran_order'";
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(array.shape))
          return "expected a tuple of non-negative integers for 'shape'";
        haveShape = true;
      } else {
        return "unexpected key '" + key + "'";
      }
      if (!consume(',') && !peek('}'))
        return "expected ',' or '}'";
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return "missing 'descr', 'fortran_order' or 'shape'";
    return "";
  }

private:
  void skipSpace() { text = text.ltrim(); }
  bool peek(char c) {
    skipSpace();
    return text.starts_with(llvm::StringRef(&c, 1));
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    text = text.drop_front();
    return true;
  }
  bool consumeWord(llvm::StringRef word) {
    skipSpace();
    return text.consume_front(word);
  }
  bool parseString(std::string &result) {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return false;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == llvm::StringRef::npos)
      return false;
    result = text.slice(1, end).str();
    text = text.drop_front(end + 1);
    return true;
  }
  bool parseShape(llvm::SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipSpace();
      uint64_t dim;
      if (text.consumeInteger(10, dim) || dim > (uint64_t(1) << 62))
        return false;
      // numpy writes Python ints; older versions may add an 'L'.
      text.consume_front("L");
      shape.push_back(static_cast<int64_t>(dim));
      if (!consume(',') && !peek(')'))
        return false;
    }
    return true;
  }

  llvm::StringRef text;
};
} // namespace

llvm::Expected<NpyArray> mpt::run::readNpy(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> fileOrErr =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (std::error_code ec = fileOrErr.getError())
    return makeError(path, "cannot read: " + ec.message());
  llvm::StringRef contents = (*fileOrErr)->getBuffer();

  if (!contents.starts_with(kMagic) || contents.size() < kMagic.size() + 4)
    return makeError(path, "not a .npy file (bad magic string)");
  auto byteAt = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(contents[i]));
  };
  unsigned major = byteAt(6);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = byteAt(8) | byteAt(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12)
      return makeError(path, "malformed .npy file (truncated header)");
    headerLength =
        byteAt(8) | byteAt(9) << 8 | byteAt(10) << 16 | byteAt(11) << 24;
    headerStart = 12;
  } else {
    return makeError(path, "unsupported .npy version " + llvm::Twine(major));
  }
  if (headerStart + headerLength > contents.size())
    return makeError(path, "malformed .npy file (truncated header)");

  NpyArray array;
  llvm::StringRef header = contents.substr(headerStart, headerLength);
  bool fortranOrder = false;
  std::string message = HeaderParser(header).parse(array, fortranOrder);
  if (!message.empty())
    return makeError(path, "malformed .npy header: " + message);
  if (fortranOrder)
    return makeError(path, "Fortran-ordered arrays are not supported; save "
                           "a C-ordered one (numpy.ascontiguousarray)");

  unsigned itemSize = getNpyItemSize(array.descr);
  if (itemSize == 0)
    return makeError(path, "unsupported dtype '" + array.descr + "'");
  uint64_t numElements = 1;
  for (int64_t dim : array.shape) {
    if (dim != 0 && numElements > (uint64_t(1) << 62) / dim)
      return makeError(path, "malformed .npy header: shape too large");
    numElements *= dim;
  }
  llvm::StringRef data = contents.drop_front(headerStart + headerLength);
  if (data.size() != numElements * itemSize)
    return makeError(path, "malformed .npy file: expected " +
                               llvm::Twine(numElements * itemSize) +
                               " bytes of data for shape " +
                               formatPythonTuple(array.shape) + " and dtype '" +
                               array.descr + "', found " +
                               llvm::Twine(data.size()));
  array.data.assign(data.begin(), data.end());
  return array;
}

llvm::Error mpt::run::writeNpy(llvm::StringRef path, llvm::StringRef descr,
                               llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<char> data) {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': ";
  os << formatPythonTuple(shape) << ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary; the
  // header ends with a newline.
  size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError(path, "cannot write: " + ec.message());
  file << kMagic;
  file << static_cast<char>(1) << static_cast<char>(0);
  file << static_cast<char>(header.size() & 0xff)
       << static_cast<char>((header.size() >> 8) & 0xff);
  file << header;
  file.write(data.data(), data.size());
  file.close();
  if (file.has_error())
    return makeError(path, "cannot write: " + file.error().message());
  return llvm::Error::success();
}
