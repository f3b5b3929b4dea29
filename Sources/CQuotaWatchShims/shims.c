#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/pidfd.h>
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

int qw_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

int qw_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags) {
    return accept4(fd, address, (socklen_t *)length, flags);
}

_Static_assert(sizeof(struct signalfd_siginfo) == QW_SIGNALFD_RECORD_SIZE, "signalfd_siginfo");
_Static_assert(offsetof(struct signalfd_siginfo, ssi_signo) == 0, "ssi_signo");

int qw_signalfd(const sigset_t *mask) {
    return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int qw_pipe_cloexec_blocking(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

_Static_assert(F_SETPIPE_SZ == QW_F_SETPIPE_SZ, "F_SETPIPE_SZ");

int qw_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[],
             const struct qw_spawn_setup *setup) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) return error;
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    // The caller keeps its pipes above 2; the one source that may be below is the daemon's own
    // stderr for stdout, and it is duplicated before descriptor 2 is replaced.
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, setup->standard_input, 0);
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, setup->standard_output, 1);
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, setup->standard_error, 2);
    // Close-on-exec covers what QuotaWatch opens; this also covers what a library opened
    // without it, or a descriptor another thread opened an instant before the clone.
    if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (error == 0 && setup->working_directory != NULL)
        error = posix_spawn_file_actions_addchdir_np(&actions, setup->working_directory);

    // The daemon blocks SIGINT/SIGTERM/SIGHUP for its sigwait thread and ignores SIGPIPE;
    // a child must not inherit either, or it could not be stopped the usual way.
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    for (int signal = 1; signal < 32; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) sigaddset(&defaults, signal);
    }
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (error == 0) error = posix_spawnattr_setflags(&attributes, flags);
    if (error == 0) error = posix_spawnattr_setpgroup(&attributes, 0);
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &empty);
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &defaults);

    if (error == 0) {
        if (setup->search_path)
            error = posix_spawnp(pid, file, &actions, &attributes, argv, envp);
        else
            error = posix_spawn(pid, file, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}

int qw_pidfd_open(pid_t pid) {
    return pidfd_open(pid, 0);
}
