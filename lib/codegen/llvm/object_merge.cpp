// Joining the relocatable ELF objects of a module's pieces (object_merge.h). The output is laid
// out as LLVM lays out an object: header, .strtab (section and symbol names), each section
// followed by its relocations, .symtab last, then the section headers.
#include "codegen/llvm/object_merge.h"

#include <cstring>
#include <map>
#include <tuple>

#include <llvm/BinaryFormat/ELF.h>

namespace tirlower {

namespace {

using namespace llvm::ELF;

template <typename T> bool readAt(const std::string &bytes, uint64_t offset, T &out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

template <typename T> void append(std::string &bytes, const T &value) {
  bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
}

uint64_t alignTo(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

struct StringTable {
  std::string bytes = std::string(1, '\0');
  std::map<std::string, uint32_t> offsets;
  uint32_t add(const std::string &text) {
    if (text.empty())
      return 0;
    auto [it, inserted] = offsets.emplace(text, static_cast<uint32_t>(bytes.size()));
    if (inserted)
      bytes += text + '\0';
    return it->second;
  }
};

// A symbol of the output, named by its group until every symbol is known.
enum class SymbolGroup { None, Section, Local, Global };
struct SymbolRef {
  SymbolGroup group = SymbolGroup::None;
  size_t index = 0;
};

struct OutSymbol {
  std::string name;
  unsigned char info = 0, other = 0;
  bool inSection = false; // else `special` is its st_shndx (SHN_UNDEF, SHN_ABS, SHN_COMMON)
  size_t section = 0;
  uint16_t special = SHN_UNDEF;
  uint64_t value = 0, size = 0;
};

struct OutSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, entsize = 0, align = 1, size = 0;
  std::string data; // empty for SHT_NOBITS
  uint64_t relaFlags = 0;
  std::vector<std::pair<Elf64_Rela, SymbolRef>> relocations;
};

// One input object as it is read: its section headers, where each section went in the output
// (placed, output section, offset there), and what each of its symbols became.
struct Input {
  explicit Input(const std::string &object) : bytes(object) {}
  const std::string &bytes;
  Elf64_Ehdr header{};
  std::vector<Elf64_Shdr> shdrs;
  std::vector<std::pair<bool, size_t>> place;
  std::vector<uint64_t> offsets;
  size_t symtab = 0;
  std::vector<SymbolRef> refs;
  std::vector<uint64_t> addend; // added to relocations against a section symbol
};

struct Merger {
  Elf64_Ehdr header{};
  bool haveHeader = false;
  std::string fileName;
  bool haveFile = false;
  std::vector<OutSection> sections;
  std::map<std::tuple<std::string, uint32_t, uint64_t, uint64_t>, size_t> sectionByKey;
  std::vector<OutSymbol> locals, globals;
  std::map<std::string, size_t> globalByName;

  bool add(const std::string &object);
  bool readHeaders(Input &in);
  bool placeSections(Input &in);
  bool addSymbols(Input &in);
  bool addSymbol(const Input &in, const Elf64_Sym &symbol, const std::string &name, SymbolRef &ref);
  bool addRelocations(Input &in);
  std::string write() const;
};

std::string nameAt(const std::string &object, const Elf64_Shdr &table, uint32_t offset) {
  if (offset >= table.sh_size || table.sh_offset + table.sh_size > object.size())
    return "";
  const char *start = object.data() + table.sh_offset + offset;
  return std::string(start, strnlen(start, table.sh_size - offset));
}

bool Merger::readHeaders(Input &in) {
  Elf64_Ehdr &eh = in.header;
  if (!readAt(in.bytes, 0, eh) || std::memcmp(eh.e_ident, ElfMagic, 4) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
    return false;
  if (!haveHeader) {
    header = eh;
    haveHeader = true;
  } else if (eh.e_machine != header.e_machine || eh.e_flags != header.e_flags ||
             std::memcmp(eh.e_ident, header.e_ident, EI_NIDENT) != 0) {
    return false;
  }
  in.shdrs.resize(eh.e_shnum);
  for (size_t k = 0; k < in.shdrs.size(); ++k) {
    if (!readAt(in.bytes, eh.e_shoff + k * sizeof(Elf64_Shdr), in.shdrs[k]))
      return false;
    if (k > 0 && in.shdrs[k].sh_type != SHT_NOBITS && in.shdrs[k].sh_offset + in.shdrs[k].sh_size > in.bytes.size())
      return false;
  }
  in.place.assign(in.shdrs.size(), {false, 0});
  in.offsets.assign(in.shdrs.size(), 0);
  return true;
}

// Appends each content section to the output section of its name, type, flags and entry size.
bool Merger::placeSections(Input &in) {
  for (size_t k = 1; k < in.shdrs.size(); ++k) {
    const Elf64_Shdr &s = in.shdrs[k];
    if (s.sh_type == SHT_SYMTAB) {
      if (in.symtab != 0)
        return false;
      in.symtab = k;
      continue;
    }
    if (s.sh_type == SHT_STRTAB || s.sh_type == SHT_RELA)
      continue;
    if (s.sh_type == SHT_GROUP || s.sh_type == SHT_REL || s.sh_type == SHT_SYMTAB_SHNDX ||
        s.sh_type == SHT_LLVM_ADDRSIG || (s.sh_flags & (SHF_LINK_ORDER | SHF_GROUP)) != 0)
      return false;
    std::string name = nameAt(in.bytes, in.shdrs[in.header.e_shstrndx], s.sh_name);
    auto [it, inserted] = sectionByKey.emplace(std::make_tuple(name, s.sh_type, s.sh_flags, s.sh_entsize), sections.size());
    if (inserted) {
      OutSection fresh;
      fresh.name = name;
      fresh.type = s.sh_type;
      fresh.flags = s.sh_flags;
      fresh.entsize = s.sh_entsize;
      sections.push_back(std::move(fresh));
    }
    OutSection &out = sections[it->second];
    uint64_t align = s.sh_addralign > 1 ? s.sh_addralign : 1;
    uint64_t offset = alignTo(out.size, align);
    if (s.sh_type != SHT_NOBITS) {
      out.data.resize(offset, '\0');
      out.data.append(in.bytes, s.sh_offset, s.sh_size);
    }
    out.size = offset + s.sh_size;
    out.align = std::max(out.align, align);
    in.place[k] = {true, it->second};
    in.offsets[k] = offset;
  }
  return in.symtab != 0;
}

bool Merger::addSymbols(Input &in) {
  const Elf64_Shdr &table = in.shdrs[in.symtab];
  if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_link >= in.shdrs.size())
    return false;
  const Elf64_Shdr &names = in.shdrs[table.sh_link];
  size_t count = table.sh_size / sizeof(Elf64_Sym);
  in.refs.assign(count, SymbolRef{});
  in.addend.assign(count, 0);
  for (size_t i = 1; i < count; ++i) {
    Elf64_Sym symbol;
    if (!readAt(in.bytes, table.sh_offset + i * sizeof(Elf64_Sym), symbol))
      return false;
    std::string name = nameAt(in.bytes, names, symbol.st_name);
    if (symbol.getType() == STT_FILE) {
      if (!haveFile)
        fileName = name;
      haveFile = true;
      continue;
    }
    if (!addSymbol(in, symbol, name, in.refs[i]))
      return false;
    if (symbol.getType() == STT_SECTION)
      in.addend[i] = in.offsets[symbol.st_shndx];
  }
  return true;
}

bool Merger::addSymbol(const Input &in, const Elf64_Sym &symbol, const std::string &name, SymbolRef &ref) {
  OutSymbol out{name, symbol.st_info, symbol.st_other, false, 0, symbol.st_shndx, symbol.st_value, symbol.st_size};
  uint16_t index = symbol.st_shndx;
  if (index == SHN_XINDEX || (index >= SHN_LORESERVE && index != SHN_ABS && index != SHN_COMMON))
    return false;
  if (index != SHN_UNDEF && index < SHN_LORESERVE) {
    if (index >= in.place.size() || !in.place[index].first)
      return false;
    out.inSection = true;
    out.section = in.place[index].second;
    out.value += in.offsets[index];
  }
  if (symbol.getType() == STT_SECTION) {
    if (!out.inSection)
      return false;
    ref = {SymbolGroup::Section, out.section};
    return true;
  }
  if (symbol.getBinding() == STB_LOCAL) {
    ref = {SymbolGroup::Local, locals.size()};
    locals.push_back(out);
    return true;
  }
  auto [it, inserted] = globalByName.emplace(name, globals.size());
  ref = {SymbolGroup::Global, it->second};
  if (inserted) {
    globals.push_back(out);
    return true;
  }
  OutSymbol &seen = globals[it->second];
  bool seenDefined = seen.inSection || seen.special != SHN_UNDEF;
  bool defined = out.inSection || out.special != SHN_UNDEF;
  if (seenDefined && defined)
    return false; // two definitions of one global: not something ld -r would join either
  if (defined)
    seen = out;
  return true;
}

bool Merger::addRelocations(Input &in) {
  for (size_t k = 1; k < in.shdrs.size(); ++k) {
    const Elf64_Shdr &s = in.shdrs[k];
    if (s.sh_type != SHT_RELA)
      continue;
    if (s.sh_link != in.symtab || s.sh_entsize != sizeof(Elf64_Rela) || s.sh_info >= in.shdrs.size() ||
        !in.place[s.sh_info].first)
      return false;
    OutSection &target = sections[in.place[s.sh_info].second];
    target.relaFlags = s.sh_flags;
    for (uint64_t at = 0; at + sizeof(Elf64_Rela) <= s.sh_size; at += sizeof(Elf64_Rela)) {
      Elf64_Rela rela;
      readAt(in.bytes, s.sh_offset + at, rela);
      uint32_t symbol = rela.getSymbol();
      if (symbol >= in.refs.size() || (symbol != 0 && in.refs[symbol].group == SymbolGroup::None))
        return false;
      rela.r_offset += in.offsets[s.sh_info];
      rela.r_addend += static_cast<int64_t>(in.addend[symbol]);
      target.relocations.emplace_back(rela, in.refs[symbol]);
    }
  }
  return true;
}

bool Merger::add(const std::string &object) {
  Input in(object);
  return readHeaders(in) && placeSections(in) && addSymbols(in) && addRelocations(in);
}

// The output's tables, built in index order.
struct Writer {
  const Merger &m;
  StringTable strings;
  std::vector<uint32_t> indexOf; // output section -> its section index
  uint32_t symtabIndex = 0, sectionCount = 0;
  size_t sectionBase = 0, localBase = 0, globalBase = 0;
  std::vector<Elf64_Shdr> shdrs;
  std::vector<std::string> contents;

  explicit Writer(const Merger &merger) : m(merger) {
    // Section indices: 0 null, 1 .strtab, then each section and its .rela, .symtab last.
    uint32_t next = 2;
    for (const OutSection &section : m.sections) {
      indexOf.push_back(next++);
      if (!section.relocations.empty())
        ++next;
    }
    symtabIndex = next;
    sectionCount = next + 1;
    shdrs.resize(sectionCount);
    contents.resize(sectionCount);
    // Symbols: null, the file, one per section, the locals, the globals.
    sectionBase = 1 + (m.haveFile ? 1 : 0);
    localBase = sectionBase + m.sections.size();
    globalBase = localBase + m.locals.size();
  }

  uint32_t symbolIndex(SymbolRef ref) const {
    if (ref.group == SymbolGroup::None)
      return 0;
    size_t base = ref.group == SymbolGroup::Section ? sectionBase
                  : ref.group == SymbolGroup::Local ? localBase
                                                    : globalBase;
    return static_cast<uint32_t>(base + ref.index);
  }

  void symbol(std::string &table, const std::string &name, unsigned char info, unsigned char other, uint16_t shndx,
              uint64_t value, uint64_t size) {
    Elf64_Sym entry{};
    entry.st_name = strings.add(name);
    entry.st_info = info;
    entry.st_other = other;
    entry.st_shndx = shndx;
    entry.st_value = value;
    entry.st_size = size;
    append(table, entry);
  }

  void symbols() {
    std::string table(sizeof(Elf64_Sym), '\0');
    if (m.haveFile)
      symbol(table, m.fileName, (STB_LOCAL << 4) | STT_FILE, 0, SHN_ABS, 0, 0);
    for (size_t s = 0; s < m.sections.size(); ++s)
      symbol(table, "", (STB_LOCAL << 4) | STT_SECTION, 0, static_cast<uint16_t>(indexOf[s]), 0, 0);
    for (const std::vector<OutSymbol> *group : {&m.locals, &m.globals})
      for (const OutSymbol &s : *group)
        symbol(table, s.name, s.info, s.other, s.inSection ? static_cast<uint16_t>(indexOf[s.section]) : s.special,
               s.value, s.size);
    describe(symtabIndex, ".symtab", SHT_SYMTAB, 0, 8, sizeof(Elf64_Sym), 1, static_cast<uint32_t>(globalBase));
    contents[symtabIndex] = table;
  }

  void describe(uint32_t index, const std::string &name, uint32_t type, uint64_t flags, uint64_t align,
                uint64_t entsize, uint32_t link, uint32_t info) {
    Elf64_Shdr &h = shdrs[index];
    h.sh_name = strings.add(name);
    h.sh_type = type;
    h.sh_flags = flags;
    h.sh_addralign = align;
    h.sh_entsize = entsize;
    h.sh_link = link;
    h.sh_info = info;
  }

  void sections() {
    for (size_t s = 0; s < m.sections.size(); ++s) {
      const OutSection &out = m.sections[s];
      describe(indexOf[s], out.name, out.type, out.flags, out.align, out.entsize, 0, 0);
      shdrs[indexOf[s]].sh_size = out.size;
      contents[indexOf[s]] = out.data;
      if (out.relocations.empty())
        continue;
      describe(indexOf[s] + 1, ".rela" + out.name, SHT_RELA, out.relaFlags, 8, sizeof(Elf64_Rela), symtabIndex,
               indexOf[s]);
      std::string &bytes = contents[indexOf[s] + 1];
      for (auto [rela, ref] : out.relocations) {
        rela.setSymbolAndType(symbolIndex(ref), rela.getType());
        append(bytes, rela);
      }
    }
  }

  std::string layOut() {
    describe(1, ".strtab", SHT_STRTAB, 0, 1, 0, 0, 0);
    contents[1] = strings.bytes; // complete: every name was added before
    std::string bytes(sizeof(Elf64_Ehdr), '\0');
    for (uint32_t k = 1; k < sectionCount; ++k) {
      bytes.resize(alignTo(bytes.size(), std::max<uint64_t>(1, shdrs[k].sh_addralign)), '\0');
      shdrs[k].sh_offset = bytes.size();
      if (shdrs[k].sh_type != SHT_NOBITS) {
        shdrs[k].sh_size = contents[k].size();
        bytes += contents[k];
      }
    }
    bytes.resize(alignTo(bytes.size(), 8), '\0');
    Elf64_Ehdr eh = m.header;
    eh.e_shoff = bytes.size();
    eh.e_shnum = static_cast<uint16_t>(sectionCount);
    eh.e_shstrndx = 1;
    eh.e_phoff = 0;
    eh.e_phnum = 0;
    eh.e_phentsize = 0;
    eh.e_entry = 0;
    for (const Elf64_Shdr &h : shdrs)
      append(bytes, h);
    std::memcpy(bytes.data(), &eh, sizeof(eh));
    return bytes;
  }
};

std::string Merger::write() const {
  Writer writer(*this);
  writer.symbols();
  writer.sections();
  return writer.layOut();
}

} // namespace

std::optional<std::string> mergeElfObjects(const std::vector<std::string> &objects) {
  Merger merger;
  for (const std::string &object : objects)
    if (!merger.add(object))
      return std::nullopt;
  if (!merger.haveHeader || merger.sections.size() + 3 >= SHN_LORESERVE)
    return std::nullopt;
  return merger.write();
}

} // namespace tirlower
