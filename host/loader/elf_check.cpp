#include "loader/elf_check.hpp"

#include <elf.h>

#include <array>
#include <cstring>
#include <fstream>

namespace schedhost::loader {
namespace {

#if defined(__x86_64__)
constexpr unsigned kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kHostMachine = EM_AARCH64;
#else
#error "schedhost: add this architecture's ELF machine to elf_check.cpp"
#endif

const char* machine_name(unsigned machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "arm";
    case EM_RISCV:
      return "riscv";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390";
    default:
      return nullptr;
  }
}

std::string describe_machine(unsigned machine) {
  const char* name = machine_name(machine);
  return name != nullptr ? name : "ELF machine " + std::to_string(machine);
}

}  // namespace

std::string check_elf_shared_object(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be read: " + std::string(std::strerror(errno));
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got < EI_NIDENT || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return "not a shared object (no ELF header)";
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64) return "a 32-bit ELF file, this host is 64-bit";
  if (got < sizeof header) return "a truncated ELF file";
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) return "a big-endian ELF file";
  if (header.e_machine != kHostMachine) {
    return "built for " + describe_machine(header.e_machine) + ", this host runs " +
           describe_machine(kHostMachine);
  }
  if (header.e_type != ET_DYN) return "an ELF file that is not a shared object";
  return {};
}

}  // namespace schedhost::loader
