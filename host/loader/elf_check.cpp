#include "loader/elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/unique_fd.hpp"

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

// Reads exactly size bytes at offset; the number read otherwise.
std::size_t read_at(int fd, void* out, std::size_t size, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n =
        ::pread(fd, static_cast<char*>(out) + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

std::string truncated(const std::string& what, std::uint64_t end, std::uint64_t size) {
  return "a truncated ELF file: " + what + " ends at byte " + std::to_string(end) +
         ", the file has " + std::to_string(size) +
         " bytes (a copy still in progress?): copy the whole file again";
}

// Where a table of count entries of entry_size bytes at offset ends; 0 when it overflows.
std::uint64_t table_end(std::uint64_t offset, std::uint64_t count, std::uint64_t entry_size) {
  const std::uint64_t bytes = count * entry_size;
  if (entry_size != 0 && bytes / entry_size != count) return 0;
  return offset + bytes < offset ? 0 : offset + bytes;
}

// The program headers and what they point into, and the section headers, against the size.
std::string check_layout(int fd, const Elf64_Ehdr& header, std::uint64_t size) {
  if (header.e_phnum == 0) return "an ELF file without program headers: it cannot be loaded";
  if (header.e_phentsize != sizeof(Elf64_Phdr)) {
    return "an ELF file with " + std::to_string(header.e_phentsize) +
           "-byte program headers (64-bit ELF has " + std::to_string(sizeof(Elf64_Phdr)) + ")";
  }
  const std::uint64_t ph_end = table_end(header.e_phoff, header.e_phnum, header.e_phentsize);
  if (ph_end == 0 || ph_end > size) return truncated("its program header table", ph_end, size);
  std::vector<Elf64_Phdr> program(header.e_phnum);
  const std::size_t bytes = program.size() * sizeof(Elf64_Phdr);
  if (read_at(fd, program.data(), bytes, header.e_phoff) != bytes) {
    return "cannot be read: " + std::string(std::strerror(errno));
  }
  for (std::size_t i = 0; i < program.size(); ++i) {
    const Elf64_Phdr& ph = program[i];
    const std::uint64_t end = ph.p_offset + ph.p_filesz;
    if (end < ph.p_offset || end > size) {
      return truncated("segment " + std::to_string(i) + " (bytes " + std::to_string(ph.p_offset) +
                           " to " + std::to_string(end) + ")",
                       end, size);
    }
  }
  if (header.e_shnum != 0) {
    const std::uint64_t sh_end = table_end(header.e_shoff, header.e_shnum, header.e_shentsize);
    if (sh_end == 0 || sh_end > size) return truncated("its section header table", sh_end, size);
  }
  return {};
}

}  // namespace

std::string check_elf_shared_object(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) {
    return "cannot be read: " + std::string(std::strerror(errno));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  Elf64_Ehdr header{};
  const std::size_t got = read_at(fd.get(), &header, sizeof header, 0);
  if (got < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return "not a shared object (no ELF header)";
  }
  if (got > EI_CLASS && header.e_ident[EI_CLASS] != ELFCLASS64) {
    return "a 32-bit ELF file, this host is 64-bit";
  }
  if (got < sizeof header) return truncated("its ELF header", sizeof header, size);
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) return "a big-endian ELF file";
  if (header.e_machine != kHostMachine) {
    return "built for " + describe_machine(header.e_machine) + ", this host runs " +
           describe_machine(kHostMachine);
  }
  if (header.e_type != ET_DYN) return "an ELF file that is not a shared object";
  return check_layout(fd.get(), header, size);
}

}  // namespace schedhost::loader
