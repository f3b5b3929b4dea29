#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/pidfd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
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

_Static_assert(RESOLVE_NO_XDEV == QW_RESOLVE_NO_XDEV, "RESOLVE_NO_XDEV");
_Static_assert(RESOLVE_NO_SYMLINKS == QW_RESOLVE_NO_SYMLINKS, "RESOLVE_NO_SYMLINKS");
_Static_assert(RESOLVE_BENEATH == QW_RESOLVE_BENEATH, "RESOLVE_BENEATH");

int qw_openat2(int directory, const char *path, unsigned long long flags, unsigned long long resolve) {
    struct open_how how = {.flags = flags, .mode = 0, .resolve = resolve};
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
}

int qw_fdatasync(int fd) {
    return fdatasync(fd);
}

// ---- Terminal restore on a fatal signal (see qw_install_fatal_restore) ----
#include <termios.h>
#include <string.h>

static char qw_restore_bytes[256];
static size_t qw_restore_length;
static struct termios qw_restore_modes;
static int qw_restore_has_modes;

static void qw_fatal_restore_handler(int signal_number) {
    ssize_t ignored = write(STDOUT_FILENO, qw_restore_bytes, qw_restore_length);
    (void)ignored;
    if (qw_restore_has_modes) tcsetattr(STDIN_FILENO, TCSANOW, &qw_restore_modes);
    // SA_RESETHAND put the default action back: this raise ends the process as the crash would.
    raise(signal_number);
}

void qw_install_fatal_restore(const char *bytes, size_t length) {
    if (length > sizeof qw_restore_bytes) length = sizeof qw_restore_bytes;
    memcpy(qw_restore_bytes, bytes, length);
    qw_restore_length = length;
    qw_restore_has_modes = tcgetattr(STDIN_FILENO, &qw_restore_modes) == 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = qw_fatal_restore_handler;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
    for (size_t index = 0; index < sizeof fatal / sizeof fatal[0]; index++) sigaction(fatal[index], &action, NULL);
}

int qw_mount_id(int fd, unsigned long long *mount_id) {
    struct statx result;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &result) != 0) return -1;
    if (!(result.stx_mask & STATX_MNT_ID)) {
        errno = ENOSYS;
        return -1;
    }
    *mount_id = result.stx_mnt_id;
    return 0;
}
