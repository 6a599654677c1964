#include "io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace ct::io {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

}  // namespace

// See Note [Reading files from a path].
InputFile::InputFile(const char* path, const char* fn) : path_(path), fn_(fn) {
  fd_ = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  CT_CHECK(fd_ >= 0, CT_ERROR_IO, fn, ": cannot open '", path, "': ", std::strerror(errno), ". Check the path");
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail(CT_ERROR_IO, str(fn, ": cannot stat '", path, "': ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(CT_ERROR_IO, str(fn, ": '", path, "' is ", kind_of(st.st_mode),
                          ", and only regular files are read. Pass the path of a file, or read the data into memory "
                          "and load it from the buffer"));
  }
  size_ = static_cast<size_t>(st.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

void InputFile::read_at(void* buf, size_t n, size_t offset) const {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    CT_CHECK(got >= 0, CT_ERROR_IO, fn_, ": reading '", path_, "' failed: ", std::strerror(errno));
    CT_CHECK(got > 0, CT_ERROR_IO, fn_, ": '", path_, "' ended at byte ", offset, ", before the ", size_,
             " bytes it had when opened (it changed while being read). Read it again");
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<size_t>(got);
  }
}

}  // namespace ct::io
