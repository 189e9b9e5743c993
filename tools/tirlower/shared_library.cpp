#include "shared_library.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "ir/diagnostic.h"

namespace tirlower {

namespace {

// A temporary directory, removed with the files this program put in it.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/tirlower-so-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()))
      path_ = buffer.data();
    else
      error_ = std::strerror(errno);
  }
  ~TempDir() {
    for (const std::string &file : files_)
      ::unlink(file.c_str());
    if (!path_.empty())
      ::rmdir(path_.c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &error() const { return error_; }
  std::string file(const std::string &name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

private:
  std::string path_, error_;
  std::vector<std::string> files_;
};

std::vector<std::string> splitCommand(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    words.push_back(word);
  return words;
}

// Runs argv with stdout and stderr captured into `output`. Returns the exit status, or -1 with
// `output` the reason when it cannot be started.
int run(const std::vector<std::string> &argv, std::string &output) {
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    output = std::strerror(errno);
    return -1;
  }
  int execErrorFds[2];
  if (::pipe2(execErrorFds, O_CLOEXEC) != 0) {
    output = std::strerror(errno);
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    return -1;
  }
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipeFds[1], STDOUT_FILENO);
    ::dup2(pipeFds[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    int error = errno;
    ssize_t ignored = ::write(execErrorFds[1], &error, sizeof error);
    (void)ignored;
    ::_exit(127);
  }
  ::close(pipeFds[1]);
  ::close(execErrorFds[1]);
  if (pid < 0) {
    output = std::strerror(errno);
    ::close(pipeFds[0]);
    ::close(execErrorFds[0]);
    return -1;
  }
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    output.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipeFds[0]);
  int execError = 0;
  bool execFailed = ::read(execErrorFds[0], &execError, sizeof execError) == sizeof execError;
  ::close(execErrorFds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (execFailed) {
    output = std::strerror(execError);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

std::string buildSharedLibrary(const std::string &code, const char *extension, const Module &module,
                               const EmitSettings &settings) {
  SourceRange where = module.functions.empty() ? SourceRange{} : module.functions.front()->loc;
  auto fail = [&](const std::string &message) { throw CompileError(where, "--emit=so: " + message); };
  const char *env = std::getenv("CC");
  std::string compiler = !settings.cc.empty() ? settings.cc : env && *env ? env : "cc";
  std::vector<std::string> argv = splitCommand(compiler);
  if (argv.empty())
    fail("the compiler command is empty (--cc or CC)");
  TempDir dir;
  if (!dir.error().empty())
    fail("cannot make a temporary directory: " + dir.error());
  std::string input = dir.file(std::string("module") + extension);
  std::string output = dir.file("module.so");
  {
    std::ofstream out(input, std::ios::binary);
    out.write(code.data(), static_cast<std::streamsize>(code.size()));
    if (!out.flush())
      fail("cannot write '" + input + "'");
  }
  bool isC = std::string(extension) == ".c";
  if (isC) {
    for (const char *flag : {"-std=c11", "-O3", "-fPIC"})
      argv.push_back(flag);
    if (settings.openmp)
      argv.push_back("-fopenmp");
  }
  for (const std::string &a : {std::string("-shared"), std::string("-o"), output, input, std::string("-lm")})
    argv.push_back(a);
  std::string log;
  int status = run(argv, log);
  if (status < 0)
    fail("cannot run '" + argv[0] + "': " + log);
  while (!log.empty() && log.back() == '\n')
    log.pop_back();
  if (status != 0)
    fail("'" + compiler + "' failed (exit status " + std::to_string(status) + ") building the shared library" +
         (log.empty() ? std::string() : ":\n" + log));
  std::ifstream in(output, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in)
    fail("'" + compiler + "' wrote no shared library");
  return bytes.str();
}

} // namespace tirlower
