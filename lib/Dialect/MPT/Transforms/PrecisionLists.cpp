//===- PrecisionLists.cpp - user overrides of the class lists -------------===//

#include "mpt/Dialect/MPT/Transforms/PrecisionLists.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mpt;
using llvm::StringRef;

/// The 1-based line of the first occurrence of `"text"` in `buffer` (the
/// JSON library keeps no positions for values), or 1.
static unsigned lineOf(StringRef buffer, StringRef text) {
  size_t pos = buffer.find(("\"" + text + "\"").str());
  if (pos == StringRef::npos)
    return 1;
  return buffer.take_front(pos).count('\n') + 1;
}

llvm::FailureOr<PrecisionLists> PrecisionLists::load(StringRef path,
                                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = llvm::formatv("cannot read lists file '{0}': {1}", path,
                          buffer.getError().message());
    return llvm::failure();
  }
  StringRef text = (*buffer)->getBuffer();
  auto fail = [&](StringRef key, const llvm::Twine &message) {
    error =
        llvm::formatv("{0}:{1}: {2}", path, lineOf(text, key), message.str());
    return llvm::failure();
  };

  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    // The parser's message reads "[line:col, byte=N]: what".
    error = llvm::formatv("malformed lists file '{0}': {1}", path,
                          llvm::toString(json.takeError()));
    return llvm::failure();
  }
  const llvm::json::Object *root = json->getAsObject();
  if (!root) {
    error = llvm::formatv("{0}:1: the lists file must be a JSON object "
                          "mapping a class to {{\"add\": [...], \"remove\": "
                          "[...]}",
                          path);
    return llvm::failure();
  }

  PrecisionLists lists;
  llvm::StringMap<std::string> addedIn;
  for (const auto &[key, value] : *root) {
    std::optional<PrecisionClass> cls = symbolizePrecisionClass(key);
    if (!cls)
      return fail(key, "unknown class '" + key.str() +
                           "'; expected allow, deny, infer or clear");
    const llvm::json::Object *edits = value.getAsObject();
    if (!edits)
      return fail(key, "class '" + key.str() +
                           "' must map to an object with \"add\" and/or "
                           "\"remove\" lists");
    for (const auto &[action, names] : *edits) {
      if (action != "add" && action != "remove")
        return fail(action, "unknown key '" + action.str() + "' in class '" +
                                key.str() + "'; expected add or remove");
      const llvm::json::Array *array = names.getAsArray();
      if (!array)
        return fail(action, "'" + action.str() + "' of class '" + key.str() +
                                "' must be a list of op names");
      for (const llvm::json::Value &entry : *array) {
        std::optional<StringRef> name = entry.getAsString();
        if (!name || !name->contains('.'))
          return fail(action, "'" + action.str() + "' of class '" + key.str() +
                                  "' must hold op names such as \"mpt.gelu\"");
        if (action == "remove") {
          lists.removed[*name].push_back(*cls);
          continue;
        }
        auto [it, inserted] = addedIn.try_emplace(*name, key.str());
        if (!inserted && it->second != key)
          return fail(*name, "op '" + name->str() + "' is added to both '" +
                                 it->second + "' and '" + key.str() + "'");
        lists.added[*name] = *cls;
      }
    }
  }
  return lists;
}

std::optional<PrecisionClass>
PrecisionLists::apply(StringRef name,
                      std::optional<PrecisionClass> byDefault) const {
  auto add = added.find(name);
  if (add != added.end())
    return add->second;
  auto remove = removed.find(name);
  if (byDefault && remove != removed.end() &&
      llvm::is_contained(remove->second, *byDefault))
    return std::nullopt;
  return byDefault;
}
