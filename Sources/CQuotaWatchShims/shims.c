#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/pidfd.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/fanotify.h>
#include <sys/vfs.h>
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
_Static_assert(M_ARENA_MAX == QW_M_ARENA_MAX, "M_ARENA_MAX");

int qw_mallopt(int parameter, int value) {
    return mallopt(parameter, value);
}

int qw_malloc_trim(size_t pad) {
    return malloc_trim(pad);
}

int qw_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

int qw_eventfd_cloexec(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int qw_mknodat_regular(int directory, const char *path, unsigned int mode) {
    return mknodat(directory, path, S_IFREG | (mode & 07777), 0);
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

    // The daemon blocks SIGINT/SIGTERM/SIGHUP for its sigwait thread and ignores SIGPIPE, and
    // it may have inherited other ignored or blocked signals, real-time ones included, from
    // whatever started it: a child gets none of them. The mask is set empty, whatever the
    // spawning thread's is, and every signal 1..NSIG-1 goes back to its default disposition.
    // Every one: glibc's sigfillset and sigaddset leave out the two real-time signals it keeps
    // for itself (32 and 33), and its posix_spawn sets those to SIG_IGN in the child unless
    // the default set names them; an ignored disposition survives exec, so a hook would start
    // with them ignored. Their bits are set directly.
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    unsigned long *words = (unsigned long *)&defaults;
    const size_t bitsPerWord = 8 * sizeof(unsigned long);
    for (int signal = 1; signal < NSIG; signal++)
        words[(signal - 1) / bitsPerWord] |= 1UL << ((signal - 1) % bitsPerWord);
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

int qw_peer_user(int fd, uid_t *user) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *user = credentials.uid;
    return 0;
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

int qw_statx_mount(int directory, const char *path, int flags, unsigned long long *mount_id, int *mount_root) {
    struct statx status;
    if (statx(directory, path, flags | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, &status) != 0) return -1;
    *mount_id = (status.stx_mask & STATX_MNT_ID) ? status.stx_mnt_id : 0;
    *mount_root = (status.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
        ? ((status.stx_attributes & STATX_ATTR_MOUNT_ROOT) ? 1 : 0) : -1;
    return 0;
}

int qw_kcmp_files(pid_t first, pid_t second) {
    return (int)syscall(SYS_kcmp, first, second, KCMP_FILES, 0, 0);
}

size_t qw_maps_shared_writable_lines(
    const unsigned char *text, size_t length, size_t *lines, size_t capacity, size_t *consumed) {
    size_t found = 0, start = 0;
    while (start < length && found < capacity) {
        const unsigned char *newline = memchr(text + start, '\n', length - start);
        if (newline == NULL) break;
        size_t end = (size_t)(newline - text);
        const unsigned char *space = memchr(text + start, ' ', end - start);
        if (space != NULL && (size_t)(space - text) + 4 < end && space[2] == 'w' && space[4] == 's') {
            lines[2 * found] = start;
            lines[2 * found + 1] = end;
            found++;
        }
        start = end + 1;
    }
    *consumed = start;
    return found;
}

_Static_assert(F_SETSIG == QW_F_SETSIG, "F_SETSIG");
_Static_assert(F_SETLEASE == QW_F_SETLEASE, "F_SETLEASE");
_Static_assert(F_GETLEASE == QW_F_GETLEASE, "F_GETLEASE");

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


int qw_fanotify_init(unsigned int flags, unsigned int event_flags) { return fanotify_init(flags, event_flags); }

int qw_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int directory, const char *path) {
    return fanotify_mark(fd, flags, mask, directory, path);
}

int qw_name_to_handle(int fd, unsigned char *bytes, unsigned int capacity, unsigned int *length, int *type,
                      uint64_t *mount_id) {
    union {
        struct file_handle handle;
        unsigned char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    } buffer;
    buffer.handle.handle_bytes = MAX_HANDLE_SZ;
    // AT_HANDLE_MNT_ID_UNIQUE (Linux 6.12): a 64-bit mount id never handed out again. The
    // classic id is reused as soon as its mount goes, so a new mount could pass for a marked one.
    if (name_to_handle_at(fd, "", &buffer.handle, (int *)mount_id, AT_EMPTY_PATH | 0x001) != 0) {
        if (errno != EINVAL) return -1;
        int classic = 0;
        buffer.handle.handle_bytes = MAX_HANDLE_SZ;
        if (name_to_handle_at(fd, "", &buffer.handle, &classic, AT_EMPTY_PATH) != 0) return -1;
        *mount_id = (uint64_t)(unsigned int)classic;
    }
    if (buffer.handle.handle_bytes > capacity) {
        errno = EOVERFLOW;
        return -1;
    }
    memcpy(bytes, buffer.handle.f_handle, buffer.handle.handle_bytes);
    *length = buffer.handle.handle_bytes;
    *type = buffer.handle.handle_type;
    return 0;
}

int qw_open_by_handle(int mount_fd, const unsigned char *bytes, unsigned int length, int type) {
    union {
        struct file_handle handle;
        unsigned char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    } buffer;
    if (length > MAX_HANDLE_SZ) {
        errno = EINVAL;
        return -1;
    }
    buffer.handle.handle_bytes = length;
    buffer.handle.handle_type = type;
    memcpy(buffer.handle.f_handle, bytes, length);
    return open_by_handle_at(mount_fd, &buffer.handle, O_PATH | O_CLOEXEC);
}

int qw_file_system_id(int fd, uint64_t *fsid) {
    struct statfs status;
    if (fstatfs(fd, &status) != 0) return -1;
    uint32_t low, high;
    memcpy(&low, &status.f_fsid.__val[0], sizeof low);
    memcpy(&high, &status.f_fsid.__val[1], sizeof high);
    *fsid = (uint64_t)low | ((uint64_t)high << 32);
    return 0;
}

int qw_file_system_kind(int fd, uint64_t *type, uint64_t *block_size) {
    struct statfs status;
    if (fstatfs(fd, &status) != 0) return -1;
    *type = (uint64_t)status.f_type;
    *block_size = (uint64_t)status.f_bsize;
    return 0;
}
