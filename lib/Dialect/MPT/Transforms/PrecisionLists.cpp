//===- PrecisionLists.cpp - user overrides of the class lists -------------===//

#include "mpt/Dialect/MPT/Transforms/PrecisionLists.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mpt;
using llvm::StringRef;

namespace {
/// Finds where things are in the file: the JSON library keeps no positions,
/// so a path of quoted strings (class, action, name) is searched for in
/// order, each after the previous one.
class Locator {
public:
  explicit Locator(StringRef text) : text(text) {}

  /// The offset of the last string of `path`, or npos.
  size_t find(llvm::ArrayRef<StringRef> path) const {
    size_t pos = 0;
    for (StringRef part : path) {
      pos = text.find(("\"" + part + "\"").str(), pos);
      if (pos == StringRef::npos)
        return pos;
      pos += part.size() + 2;
    }
    return pos - path.back().size() - 2;
  }

  /// The 1-based line of `path` (1 when not found).
  unsigned line(llvm::ArrayRef<StringRef> path) const {
    size_t pos = find(path);
    return pos == StringRef::npos ? 1 : text.take_front(pos).count('\n') + 1;
  }

  /// The keys of `object` in the order they appear in the file, below
  /// `prefix`.
  std::vector<StringRef> ordered(const llvm::json::Object &object,
                                 llvm::ArrayRef<StringRef> prefix) const {
    std::vector<std::pair<size_t, StringRef>> keys;
    for (const auto &entry : object) {
      llvm::SmallVector<StringRef> path(prefix);
      path.push_back(entry.first);
      keys.push_back({find(path), entry.first});
    }
    llvm::sort(keys);
    std::vector<StringRef> result;
    for (auto &[pos, key] : keys)
      result.push_back(key);
    return result;
  }

private:
  StringRef text;
};
} // namespace

llvm::FailureOr<PrecisionLists> PrecisionLists::load(StringRef path,
                                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = llvm::formatv("cannot read lists file '{0}': {1}", path,
                          buffer.getError().message());
    return llvm::failure();
  }
  StringRef text = (*buffer)->getBuffer();
  Locator locator(text);
  auto fail = [&](llvm::ArrayRef<StringRef> where, const llvm::Twine &message) {
    error =
        llvm::formatv("{0}:{1}: {2}", path, locator.line(where), message.str());
    return llvm::failure();
  };

  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    // The parser's message reads "[line:col, byte=N]: what".
    std::string message = llvm::toString(json.takeError());
    StringRef rest = message;
    unsigned line = 0, column = 0;
    if (rest.consume_front("[") && !rest.consumeInteger(10, line) &&
        rest.consume_front(":") && !rest.consumeInteger(10, column)) {
      rest = rest.drop_until([](char c) { return c == ']'; });
      rest.consume_front("]: ");
      error = llvm::formatv("{0}:{1}:{2}: malformed lists file: {3}", path,
                            line, column, rest);
    } else {
      error = llvm::formatv("{0}: malformed lists file: {1}", path, message);
    }
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
  for (StringRef key : locator.ordered(*root, {})) {
    const llvm::json::Value &value = *root->get(key);
    std::optional<PrecisionClass> cls = symbolizePrecisionClass(key);
    if (!cls)
      return fail({key}, "unknown class '" + key.str() +
                             "'; expected allow, deny, infer or clear");
    const llvm::json::Object *edits = value.getAsObject();
    if (!edits)
      return fail({key}, "class '" + key.str() +
                             "' must map to an object with \"add\" and/or "
                             "\"remove\" lists");
    for (StringRef action : locator.ordered(*edits, {key})) {
      const llvm::json::Value &names = *edits->get(action);
      if (action != "add" && action != "remove")
        return fail({key, action}, "unknown key '" + action.str() +
                                       "' in class '" + key.str() +
                                       "'; expected add or remove");
      const llvm::json::Array *array = names.getAsArray();
      if (!array)
        return fail({key, action}, "'" + action.str() + "' of class '" +
                                       key.str() +
                                       "' must be a list of op names");
      for (const llvm::json::Value &entry : *array) {
        std::optional<StringRef> name = entry.getAsString();
        if (!name || !name->contains('.'))
          return fail({key, action},
                      "'" + action.str() + "' of class '" + key.str() +
                          "' must hold op names such as \"mpt.gelu\"");
        if (action == "remove") {
          lists.removed[*name].push_back(*cls);
          continue;
        }
        auto [it, inserted] = addedIn.try_emplace(*name, key.str());
        if (!inserted && it->second != key)
          return fail({key, action, *name},
                      "op '" + name->str() + "' is added to both '" +
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
