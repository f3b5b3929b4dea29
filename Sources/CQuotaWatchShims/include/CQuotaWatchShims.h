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
enum { QW_M_TRIM_THRESHOLD = -1, QW_M_MMAP_THRESHOLD = -3, QW_M_ARENA_MAX = -8 };

// pipe2(2) with O_CLOEXEC: GNU-only in glibc.
int qw_pipe_cloexec(int fds[2]);

/// A non-blocking, close-on-exec eventfd counting from 0 (one descriptor, where a wake-up
/// pipe takes two).
int qw_eventfd_cloexec(void);

/// Creates a regular file without opening it (`mknodat` with `S_IFREG`), so that no
/// descriptor is needed; fails with EEXIST when the name exists, whatever it is.
int qw_mknodat_regular(int directory, const char *path, unsigned int mode);

// accept4(2): GNU-only in glibc.
struct sockaddr;
int qw_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);

// signalfd(2) with SFD_CLOEXEC | SFD_NONBLOCK for the signals in `mask`: <sys/signalfd.h> is
// not part of Swift's Glibc module. One read yields 128-byte records whose first field is
// the signal number (uint32).
#include <signal.h>
int qw_signalfd(const sigset_t *mask);
enum { QW_SIGNALFD_RECORD_SIZE = 128 };

// pipe2(2) with only O_CLOEXEC: the end a child gets must stay blocking (O_NONBLOCK belongs
// to the shared open file, so dup2 would hand it on).
int qw_pipe_cloexec_blocking(int fds[2]);

// F_SETPIPE_SZ for fcntl(2): GNU-only in glibc.
enum { QW_F_SETPIPE_SZ = 1031 };

// What the spawned child's descriptors 0, 1 and 2 become, and where it starts.
struct qw_spawn_setup {
    int standard_input;
    int standard_output;
    int standard_error;
    // NULL keeps the daemon's working directory.
    const char *working_directory;
    // Non-zero: look argv[0] up in PATH (posix_spawnp).
    int search_path;
};

// posix_spawn(p) with everything a hook needs, built and torn down around the one call:
// descriptors 0-2 from `setup`, every other descriptor closed (addclosefrom_np, GNU-only), a
// new process group, an empty signal mask and the classic signals back to their defaults.
// Returns 0 or an error number, as posix_spawn does.
int qw_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[],
             const struct qw_spawn_setup *setup);

// getsockopt(2) with SO_PEERCRED: the user of the process at the other end of a connected
// Unix socket. `struct ucred` is GNU-only in glibc.
int qw_peer_user(int fd, uid_t *user);

// pidfd_open(2): declared in <sys/pidfd.h>, which Swift's Glibc module does not include.
// Fails with ENOSYS before Linux 5.3.
int qw_pidfd_open(pid_t pid);

// openat2(2) through syscall(2): glibc has no wrapper. `resolve` is a mask of the QW_RESOLVE_*
// flags. Fails with ENOSYS before Linux 5.6.
int qw_openat2(int directory, const char *path, unsigned long long flags, unsigned long long resolve);
enum {
    QW_RESOLVE_NO_XDEV = 0x01,
    QW_RESOLVE_NO_SYMLINKS = 0x04,
    QW_RESOLVE_BENEATH = 0x08,
};

// statx(2) asked only where a name (or, with AT_EMPTY_PATH and "", the descriptor) is
// mounted: `*mount_id` gets STATX_MNT_ID (0 when the kernel, before 5.8, does not report it)
// and `*mount_root` STATX_ATTR_MOUNT_ROOT as 1 or 0 (-1 when not reported). Returns 0, or -1
// with errno.
int qw_statx_mount(int directory, const char *path, int flags, unsigned long long *mount_id, int *mount_root);

// kcmp(2) with KCMP_FILES: 0 when the two tasks share one descriptor table, 1 or 2 when they
// do not, -1 with errno (ENOSYS without CONFIG_KCMP, EPERM without ptrace access).
int qw_kcmp_files(pid_t first, pid_t second);

// The whole lines of a /proc/PID/maps buffer whose permissions (after the first space) have
// 'w' and 's': up to `capacity` (start, end) offset pairs in `lines`. Returns how many;
// `*consumed` gets the length of the lines looked at (a last line cut by the read, and lines
// past `capacity`, are left for the next call). In C because a browser's maps is a megabyte
// of lines read for every snapshot, nearly all of them private or read-only.
size_t qw_maps_shared_writable_lines(
    const unsigned char *text, size_t length, size_t *lines, size_t capacity, size_t *consumed);

// fcntl(2) commands glibc declares only under _GNU_SOURCE.
enum {
    QW_F_SETSIG = 10,
    QW_F_SETLEASE = 1024,
    QW_F_GETLEASE = 1025,
};

// fdatasync(2) is declared by Glibc's module only under some feature macros.
int qw_fdatasync(int fd);

// Writes `length` bytes (at most 256) to standard output and restores the terminal modes
// standard input had at the call, then dies of the same signal, when the process gets
// SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE or SIGABRT: a full-screen view that crashes leaves
// the shell usable. Only async-signal-safe calls run in the handler.
void qw_install_fatal_restore(const char *bytes, size_t length);


// fanotify(7) and file handles: <sys/fanotify.h> is not part of Swift's Glibc module, and
// name_to_handle_at/open_by_handle_at and struct file_handle are GNU-only in glibc.
#include <stdint.h>
int qw_fanotify_init(unsigned int flags, unsigned int event_flags);
int qw_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int directory, const char *path);
// The handle of the object open at `fd` (AT_EMPTY_PATH): its bytes into `bytes` (at most
// `capacity`, else EOVERFLOW), their count, the handle type and the mount id (the unique
// 64-bit one where the kernel has it).
int qw_name_to_handle(int fd, unsigned char *bytes, unsigned int capacity, unsigned int *length, int *type,
                      uint64_t *mount_id);
// Opens the object as O_PATH | O_CLOEXEC (O_PATH is GNU-only in glibc): enough to stat it.
int qw_open_by_handle(int mount_fd, const unsigned char *bytes, unsigned int length, int type);
// statfs(2)'s f_fsid of the file system `fd` is on, as fanotify reports it: val[0] in the
// low half, val[1] in the high half.
int qw_file_system_id(int fd, uint64_t *fsid);
// statfs(2)'s f_type (the file system's magic number) and f_bsize of the file system `fd` is on.
int qw_file_system_kind(int fd, uint64_t *type, uint64_t *block_size);

#endif
