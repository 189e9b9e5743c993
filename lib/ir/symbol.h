// Interned identifiers: one copy of each distinct name for the whole process, compared by pointer.
// Safe to construct from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace tirlower {

class Symbol {
public:
  Symbol() = default;
  explicit Symbol(std::string_view text);

  std::string_view view() const { return text_ ? std::string_view(*text_) : std::string_view(); }
  const std::string &str() const;
  bool empty() const { return text_ == nullptr || text_->empty(); }

  friend bool operator==(Symbol a, Symbol b) { return a.text_ == b.text_; }
  friend bool operator!=(Symbol a, Symbol b) { return a.text_ != b.text_; }
  // Orders by text, so sorted containers of symbols are deterministic.
  friend bool operator<(Symbol a, Symbol b) { return a.view() < b.view(); }
  const void *identity() const { return text_; }

private:
  const std::string *text_ = nullptr;
};

} // namespace tirlower

template <> struct std::hash<tirlower::Symbol> {
  size_t operator()(tirlower::Symbol s) const noexcept { return std::hash<const void *>()(s.identity()); }
};
