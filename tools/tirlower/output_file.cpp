#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <vector>

namespace tirlower {

namespace {

bool writeAll(int fd, const std::string &contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

std::string writeOutput(const std::string &path, const std::string &contents) {
  if (path == "-") {
    std::cout << contents;
    std::cout.flush();
    return std::cout ? "" : "cannot write to stdout";
  }
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISDIR(existing.st_mode))
      return "cannot write '" + path + "': " + std::strerror(EISDIR);
    // A device, pipe or socket (/dev/null, /dev/stdout, a FIFO): written in place. Renaming
    // a temporary file over it would replace the device node itself.
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return "cannot write '" + path + "': " + std::strerror(errno);
    bool written = writeAll(fd, contents);
    int writeErrno = errno;
    bool closed = ::close(fd) == 0;
    if (written && closed)
      return "";
    return "cannot write '" + path + "': " + std::strerror(written ? errno : writeErrno);
  }
  std::string pattern = directoryOf(path) + "/.tirlower-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0)
    return "cannot create '" + path + "': " + std::strerror(errno);
  std::string temporary(name.data());
  // mkstemp creates the file 0600; give it the mode a plain create would (0666 & ~umask).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  bool ok = writeAll(fd, contents);
  int savedErrno = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(temporary.c_str(), path.c_str()) == 0)
    return "";
  savedErrno = errno ? errno : savedErrno;
  ::unlink(temporary.c_str());
  return "cannot write '" + path + "': " + std::strerror(savedErrno);
}

bool readInput(const std::string &path, std::string &contents, std::string &error) {
  if (path == "-") {
    contents.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = std::strerror(errno);
    return false;
  }
  struct stat info {};
  if (::fstat(::fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    error = std::strerror(EISDIR);
    return false;
  }
  if (S_ISREG(info.st_mode) && info.st_size > 0)
    contents.reserve(static_cast<size_t>(info.st_size)); // one allocation, no doubling slack
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0)
    contents.append(buffer, n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) {
    error = "read error";
    return false;
  }
  return true;
}

} // namespace tirlower
