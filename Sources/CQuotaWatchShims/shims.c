#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <malloc.h>
#include <stddef.h>
#include "CQuotaWatchShims.h"

_Static_assert(offsetof(struct dirent64, d_ino) == QW_DIRENT_INO_OFFSET, "d_ino");
_Static_assert(offsetof(struct dirent64, d_reclen) == QW_DIRENT_RECLEN_OFFSET, "d_reclen");
_Static_assert(offsetof(struct dirent64, d_type) == QW_DIRENT_TYPE_OFFSET, "d_type");
_Static_assert(offsetof(struct dirent64, d_name) == QW_DIRENT_NAME_OFFSET, "d_name");

ssize_t qw_getdents64(int fd, void *buffer, size_t length) {
    return getdents64(fd, buffer, length);
}

_Static_assert(M_TRIM_THRESHOLD == QW_M_TRIM_THRESHOLD, "M_TRIM_THRESHOLD");
_Static_assert(M_MMAP_THRESHOLD == QW_M_MMAP_THRESHOLD, "M_MMAP_THRESHOLD");

int qw_mallopt(int parameter, int value) {
    return mallopt(parameter, value);
}

int qw_malloc_trim(size_t pad) {
    return malloc_trim(pad);
}

int qw_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

int qw_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags) {
    return accept4(fd, address, (socklen_t *)length, flags);
}
