#include "output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
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

// The temporary file being written, for the signal handler: SIGINT or SIGTERM during a write
// must not leave a `.tirlower-XXXXXX` behind. Only async-signal-safe calls happen in the handler.
char pendingTemporary[4096];
volatile sig_atomic_t havePendingTemporary = 0;

extern "C" void removeTemporaryAndDie(int signal) {
  if (havePendingTemporary)
    ::unlink(pendingTemporary);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// Installs the handler for the lifetime of one write and restores the previous ones after.
class TemporaryFileGuard {
public:
  TemporaryFileGuard() {
    struct sigaction action {};
    action.sa_handler = removeTemporaryAndDie;
    sigemptyset(&action.sa_mask);
    for (size_t k = 0; k < std::size(kSignals); ++k)
      ::sigaction(kSignals[k], &action, &previous_[k]);
  }
  ~TemporaryFileGuard() {
    havePendingTemporary = 0;
    for (size_t k = 0; k < std::size(kSignals); ++k)
      ::sigaction(kSignals[k], &previous_[k], nullptr);
  }
  TemporaryFileGuard(const TemporaryFileGuard &) = delete;
  TemporaryFileGuard &operator=(const TemporaryFileGuard &) = delete;

  // mkstemp with the signals blocked, so that the handler knows every file that exists.
  int create(const std::string &pattern) {
    if (pattern.size() >= sizeof pendingTemporary) {
      errno = ENAMETOOLONG;
      return -1;
    }
    sigset_t block, old;
    sigemptyset(&block);
    for (int signal : kSignals)
      sigaddset(&block, signal);
    ::sigprocmask(SIG_BLOCK, &block, &old);
    std::memcpy(pendingTemporary, pattern.c_str(), pattern.size() + 1);
    int fd = ::mkstemp(pendingTemporary);
    int savedErrno = errno;
    havePendingTemporary = fd >= 0;
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    errno = savedErrno;
    return fd;
  }
  std::string name() const { return pendingTemporary; }
  // After the rename (or unlink), with the signals blocked around it: nothing to remove.
  void forget() { havePendingTemporary = 0; }

private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[std::size(kSignals)]{};
};

// The file a path names after following symlinks (also a dangling link's target, which the
// write creates). Writing through a link keeps the link, as `cp` and LLVM's tools do.
std::string resolveSymlinks(std::string path) {
  for (int depth = 0; depth < 40; ++depth) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
      return path;
    std::vector<char> target(static_cast<size_t>(info.st_size > 0 ? info.st_size : 4096) + 1);
    ssize_t n = ::readlink(path.c_str(), target.data(), target.size() - 1);
    if (n < 0)
      return path;
    std::string link(target.data(), static_cast<size_t>(n));
    path = link.front() == '/' ? link : directoryOf(path) + "/" + link;
  }
  return path; // a loop: open() reports it
}

// The file an output to `requestedPath` goes to (symlinks followed), with its stat when it exists.
// A link whose target is no path, such as /dev/stdout on a pipe (/proc/self/fd/1 -> "pipe:[N]"),
// is the link itself: what it opens is written in place.
std::string outputTarget(const std::string &requestedPath, struct stat &info, bool &exists) {
  std::string path = resolveSymlinks(requestedPath);
  exists = ::stat(path.c_str(), &info) == 0;
  if (!exists && path != requestedPath && ::stat(requestedPath.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    exists = true;
    return requestedPath;
  }
  return path;
}

// writeOutput of what `toStdout` writes to std::cout (for "-") or `toFile` to an open file
// (false: failed, with errno set).
std::string writeOutputWith(const std::string &requestedPath, const std::function<void()> &toStdout,
                            const std::function<bool(int)> &toFile) {
  if (requestedPath == "-") {
    toStdout();
    std::cout.flush();
    return std::cout ? "" : "cannot write to stdout";
  }
  struct stat existing {};
  bool exists = false;
  const std::string path = outputTarget(requestedPath, existing, exists);
  if (exists && !S_ISREG(existing.st_mode)) {
    if (S_ISDIR(existing.st_mode))
      return "cannot write '" + requestedPath + "': " + std::strerror(EISDIR);
    // A device, pipe or socket (/dev/null, /dev/stdout, a FIFO): written in place. Renaming
    // a temporary file over it would replace the device node itself.
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return "cannot write '" + requestedPath + "': " + std::strerror(errno);
    bool written = toFile(fd);
    int writeErrno = errno;
    bool closed = ::close(fd) == 0;
    if (written && closed)
      return "";
    return "cannot write '" + requestedPath + "': " + std::strerror(written ? errno : writeErrno);
  }
  TemporaryFileGuard guard;
  int fd = guard.create(directoryOf(path) + "/.tirlower-XXXXXX");
  if (fd < 0)
    return "cannot create '" + requestedPath + "': " + std::strerror(errno);
  const std::string temporary = guard.name();
  // mkstemp creates the file 0600: give it the existing file's mode, else the one a plain
  // create would (0666 & ~umask).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, exists ? existing.st_mode & 07777 : 0666 & ~mask);
  bool ok = toFile(fd);
  int savedErrno = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(temporary.c_str(), path.c_str()) == 0) {
    guard.forget();
    return "";
  }
  savedErrno = errno ? errno : savedErrno;
  ::unlink(temporary.c_str());
  guard.forget();
  return "cannot write '" + requestedPath + "': " + std::strerror(savedErrno);
}

// Where the body of an output to `path` can be kept out of memory: an unnamed file in the
// directory of the file `path` names (a regular file, or none yet); -1 otherwise.
int temporaryBodyFile(const std::string &requestedPath) {
#ifdef O_TMPFILE
  if (requestedPath == "-")
    return -1;
  struct stat existing {};
  bool exists = false;
  const std::string path = outputTarget(requestedPath, existing, exists);
  if (exists && !S_ISREG(existing.st_mode))
    return -1;
  return ::open(directoryOf(path).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
  (void)requestedPath;
  return -1;
#endif
}

constexpr size_t kBodyBuffer = size_t(1) << 20;

} // namespace

std::string writeOutput(const std::string &requestedPath, const std::string &contents) {
  return writeOutputWith(
      requestedPath, [&] { std::cout << contents; }, [&](int fd) { return writeAll(fd, contents); });
}

OutputBody::OutputBody(const std::string &path) : fd_(temporaryBodyFile(path)) {}

OutputBody::~OutputBody() {
  if (fd_ >= 0)
    ::close(fd_);
}

void OutputBody::append(std::string_view text) {
  buffer_ += text;
  if (fd_ >= 0 && buffer_.size() >= kBodyBuffer)
    flush();
}

// Moves the buffered text to the temporary file; a failed write is kept for writeOutput.
bool OutputBody::flush() {
  if (fd_ < 0 || buffer_.empty() || error_)
    return error_ == 0;
  if (!writeAll(fd_, buffer_)) {
    error_ = errno ? errno : EIO;
    return false;
  }
  size_ += buffer_.size();
  buffer_.clear();
  return true;
}

// Appends the temporary file's text to `fd` (in the kernel where it can, else through a buffer).
bool OutputBody::copyTo(int fd) {
  if (!flush()) {
    errno = error_;
    return false;
  }
  off_t offset = 0;
  auto remaining = [&] { return size_ - static_cast<uint64_t>(offset); };
  while (remaining() > 0) {
    ssize_t n = ::copy_file_range(fd_, &offset, fd, nullptr, remaining(), 0);
    if (n > 0)
      continue;
    if (n < 0 && errno == EINTR)
      continue;
    break; // unsupported between these files (or a failure, which the plain copy meets again)
  }
  std::string chunk;
  while (remaining() > 0) {
    chunk.resize(static_cast<size_t>(std::min<uint64_t>(remaining(), kBodyBuffer)));
    ssize_t n = ::pread(fd_, chunk.data(), chunk.size(), offset);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    chunk.resize(static_cast<size_t>(n));
    if (!writeAll(fd, chunk))
      return false;
    offset += n;
  }
  return true;
}

std::string writeOutput(const std::string &requestedPath, const std::string &head, OutputBody &body) {
  return writeOutputWith(
      requestedPath,
      [&] {
        std::cout << head << body.buffer_; // stdout: the body is all in memory
      },
      [&](int fd) {
        if (!writeAll(fd, head))
          return false;
        if (body.fd_ >= 0)
          return body.copyTo(fd);
        return writeAll(fd, body.buffer_);
      });
}

bool readInput(const std::string &path, std::string &contents, std::string &error, uint64_t maxBytes) {
  FILE *file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  const std::string name = path == "-" ? "<stdin>" : path;
  if (!file) {
    error = "cannot open '" + name + "': " + std::strerror(errno);
    return false;
  }
  struct stat info {};
  if (::fstat(::fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    error = "cannot open '" + name + "': " + std::strerror(EISDIR);
    return false;
  }
  if (S_ISREG(info.st_mode) && info.st_size > 0 && static_cast<uint64_t>(info.st_size) <= maxBytes)
    contents.reserve(static_cast<size_t>(info.st_size)); // one allocation, no doubling slack
  char buffer[1 << 16];
  size_t n;
  bool tooLarge = false;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    if (contents.size() + n > maxBytes) {
      tooLarge = true;
      break;
    }
    contents.append(buffer, n);
  }
  bool failed = std::ferror(file);
  if (file != stdin)
    std::fclose(file);
  if (tooLarge) {
    contents.clear();
    contents.shrink_to_fit();
    error = "cannot read '" + name + "': the input is larger than " + std::to_string(maxBytes >> 20) +
            " MiB, the most tirlower reads";
    return false;
  }
  if (failed) {
    error = "cannot read '" + name + "': read error";
    return false;
  }
  return true;
}

bool readInput(const std::string &path, SourceText &text, std::string &error, uint64_t maxBytes) {
  if (path != "-") {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      struct stat info {};
      std::optional<SourceText> mapped;
      if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) >= kMapInputBytes &&
          static_cast<uint64_t>(info.st_size) <= maxBytes)
        mapped = SourceText::map(fd, static_cast<size_t>(info.st_size));
      ::close(fd);
      if (mapped) {
        text = std::move(*mapped);
        return true;
      }
    }
  }
  // Everything else (stdin, devices, small or unmappable files, errors) is read as before.
  std::string contents;
  if (!readInput(path, contents, error, maxBytes))
    return false;
  text = SourceText(std::move(contents));
  return true;
}

} // namespace tirlower
