#ifndef QUOTAWATCH_SHIMS_H
#define QUOTAWATCH_SHIMS_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/stat.h>

// getdents64(2): glibc declares it only under _GNU_SOURCE, which Swift's
// Glibc module does not define.
ssize_t qw_getdents64(int fd, void *buffer, size_t length);

// Layout of one linux_dirent64 record, for decoding the getdents64 buffer.
enum {
    QW_DIRENT_INO_OFFSET = 0,
    QW_DIRENT_RECLEN_OFFSET = 16,
    QW_DIRENT_TYPE_OFFSET = 18,
    QW_DIRENT_NAME_OFFSET = 19,
};

// fstatat(fd, "", ..., AT_EMPTY_PATH) stats the descriptor itself; also GNU-only in glibc.
enum { QW_AT_EMPTY_PATH = 0x1000 };

// mallopt(3) lives in <malloc.h>, which Swift's Glibc module does not include.
int qw_mallopt(int parameter, int value);
int qw_malloc_trim(size_t pad);
enum { QW_M_TRIM_THRESHOLD = -1, QW_M_MMAP_THRESHOLD = -3 };

// pipe2(2) with O_CLOEXEC: GNU-only in glibc.
int qw_pipe_cloexec(int fds[2]);

// accept4(2): GNU-only in glibc.
struct sockaddr;
int qw_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);

#endif
