#include "transform/pipeline.h"

#include <algorithm>
#include <cctype>

#include "ir/edit_distance.h"

namespace tirlower {

namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

class PipelineParser {
public:
  PipelineParser(std::string_view text, const PassRegistry &registry, uint32_t fileId)
      : text_(text), registry_(registry), fileId_(fileId) {}

  std::vector<PipelineEntry> parse() {
    std::vector<PipelineEntry> entries;
    skipSpace();
    if (atEnd())
      return entries;
    while (true) {
      entries.push_back(parseEntry());
      skipSpace();
      if (atEnd())
        return entries;
      if (text_[pos_] != ',')
        fail("expected ',' or the end of the pipeline", pos_, 1);
      ++pos_;
      skipSpace();
      if (atEnd())
        fail("expected a pass name after ','", pos_, 1);
    }
  }

private:
  [[noreturn]] void fail(std::string message, size_t offset, size_t length) {
    throw PipelineError(std::move(message), offset, length);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  void skipSpace() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  size_t scanName() {
    size_t start = pos_;
    while (!atEnd() && isNameChar(text_[pos_]))
      ++pos_;
    return start;
  }

  PipelineEntry parseEntry() {
    size_t start = scanName();
    if (pos_ == start)
      fail(atEnd() ? "expected a pass name" : "expected a pass name, found '" + std::string(1, text_[pos_]) + "'",
           start, 1);
    std::string name(text_.substr(start, pos_ - start));
    const PassInfo *info = registry_.find(name);
    if (!info) {
      std::string message = "unknown pass '" + name + "'";
      std::string suggestion = closestPassName(name, registry_);
      if (!suggestion.empty())
        message += "; did you mean '" + suggestion + "'?";
      fail(message, start, name.size());
    }
    PipelineEntry entry{info, {}, start};
    skipSpace();
    if (!atEnd() && text_[pos_] == '{')
      parseOptions(entry);
    return entry;
  }

  void parseOptions(PipelineEntry &entry) {
    size_t open = pos_++;
    skipSpace();
    if (!atEnd() && text_[pos_] == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skipSpace();
      size_t keyStart = scanName();
      if (pos_ == keyStart)
        fail(atEnd() ? "unterminated option list of pass '" + entry.info->name + "': missing '}'"
                     : "expected an option name",
             atEnd() ? open : pos_, 1);
      std::string key(text_.substr(keyStart, pos_ - keyStart));
      checkOption(*entry.info, key, keyStart);
      const PassOptionInfo &option = *findPassOption(*entry.info, key);
      if (!option.repeatable && std::any_of(entry.options.begin(), entry.options.end(),
                                            [&](const PassOptionValue &given) { return given.name == key; }))
        fail(passOptionGivenTwiceMessage(*entry.info, key), keyStart, key.size());
      skipSpace();
      if (atEnd() || text_[pos_] != '=')
        fail("expected '=' after option '" + key + "'", pos_, 1);
      ++pos_;
      skipSpace();
      size_t valueStart = pos_;
      std::string value = scanValue(entry.info->name);
      if (std::string error = passOptionValueError(*entry.info, option, value); !error.empty()) {
        size_t valueEnd = pos_;
        while (valueEnd > valueStart && std::isspace(static_cast<unsigned char>(text_[valueEnd - 1])))
          --valueEnd;
        fail(error, valueStart, valueEnd - valueStart);
      }
      entry.options.push_back({key, value, valueRange(valueStart, value), ""});
      if (atEnd())
        fail("unterminated option list of pass '" + entry.info->name + "': missing '}'", open, 1);
      if (text_[pos_++] == '}')
        return;
    }
  }

  void checkOption(const PassInfo &info, const std::string &key, size_t offset) {
    if (!findPassOption(info, key))
      fail(unknownPassOptionMessage(info, key), offset, key.size());
  }

  // A value runs to the next ',' or '}' outside quotes and brackets; surrounding blanks are
  // dropped and one pair of enclosing quotes is removed.
  std::string scanValue(const std::string &passName) {
    skipSpace();
    size_t start = pos_;
    std::vector<char> closers;
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == '"' || c == '\'') {
        size_t close = text_.find(c, pos_ + 1);
        if (close == std::string_view::npos)
          fail("unterminated quoted value", pos_, 1);
        pos_ = close + 1;
        continue;
      }
      if (closers.empty() && (c == ',' || c == '}'))
        break;
      if (c == '(' || c == '[' || c == '{')
        closers.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      else if (!closers.empty() && c == closers.back())
        closers.pop_back();
      ++pos_;
    }
    if (atEnd() && !closers.empty())
      fail("unbalanced brackets in an option value of pass '" + passName + "'", start, 1);
    std::string_view value = text_.substr(start, pos_ - start);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
      value.remove_suffix(1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    return std::string(value);
  }

  // Where `value`, scanned from `start`, is written (inside its quotes, if any): a range in the
  // source the pipeline text is (fileId_), invalid when it is none.
  SourceRange valueRange(size_t start, const std::string &value) const {
    if (!fileId_)
      return {};
    if (text_[start] == '"' || text_[start] == '\'')
      ++start;
    uint32_t begin = static_cast<uint32_t>(start);
    return {fileId_, begin, begin + static_cast<uint32_t>(value.size())};
  }

  std::string_view text_;
  const PassRegistry &registry_;
  uint32_t fileId_ = 0;
  size_t pos_ = 0;
};

} // namespace

std::vector<PipelineEntry> parsePipeline(std::string_view text, const PassRegistry &registry, uint32_t fileId) {
  return PipelineParser(text, registry, fileId).parse();
}

std::string formatPipelineError(std::string_view text, const PipelineError &error) {
  size_t offset = std::min(error.offset, text.size());
  size_t length = std::max<size_t>(1, std::min(error.length, text.size() > offset ? text.size() - offset : 1));
  std::string out = std::string(error.what()) + " (column " + std::to_string(offset + 1) + ")\n";
  out += "  " + std::string(text) + "\n";
  out += "  " + std::string(offset, ' ') + "^" + std::string(length - 1, '~') + "\n";
  return out;
}

std::string describePass(const PassInfo &info, const PassOptions &options) {
  std::string out = info.name;
  if (options.empty())
    return out;
  out += "{";
  for (size_t k = 0; k < options.size(); ++k)
    out += (k ? "," : "") + options[k].name + "=" + options[k].value;
  return out + "}";
}

std::string closestPassName(std::string_view name, const PassRegistry &registry) {
  std::string best;
  size_t bestDistance = SIZE_MAX;
  auto consider = [&](const std::string &candidate, const std::string &canonical) {
    size_t distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = canonical;
    }
  };
  for (const PassInfo &info : registry.passes()) {
    consider(info.name, info.name);
    for (const std::string &alias : info.aliases)
      consider(alias, alias);
  }
  // A plausible typo changes at most a third of the name (and always allows two edits).
  size_t limit = std::max<size_t>(2, name.size() / 3);
  return bestDistance <= limit ? best : std::string();
}

} // namespace tirlower
