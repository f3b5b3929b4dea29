/*
 * The floor of a watcher that reads sizes: `scripts/bench backends` runs it beside the daemon
 * and inotifywait on the same burst. It reads the kernel's events for the directories that
 * exist under ROOT when it starts, with the daemon's own event mask, and `statx`es the named
 * file of each close-after-write event (the burst's producer closes each file once, so that is
 * one `statx` per file); nothing else: no tree, no tally, no new directories followed, no
 * moves paired. C, so that what it costs is the kernel's part. It reads as the daemon's reader
 * does (KernelEventReader): a read of fewer than 4096 events is followed by a 2 ms pause, so
 * that under a burst the kernel hands over events by the thousand, not one at a time.
 *
 *   floor inotify ROOT [FILES]   one inotify watch per directory (the daemon's mask)
 *   floor fanotify ROOT [FILES]  one filesystem mark (FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
 *                          FAN_REPORT_TARGET_FID, the daemon's mask); events whose directory
 *                          handle is not one of ROOT's directories are dropped
 *
 * Prints "ready" once watching, and "done" once FILES names in ROOT have been stat'ed (the
 * harness reads its CPU then: under a filesystem mark, other writers on the file system keep
 * it busy after the burst); on SIGTERM prints "events N statx N" and exits.
 * Built by the harness: cc -O2 -o floor floor.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FAN_REPORT_TARGET_FID
#define FAN_REPORT_TARGET_FID 0x00001000
#endif
#ifndef FAN_RENAME
#define FAN_RENAME 0x10000000
#endif

#define MAX_DIRS 65536
#define HANDLE_BYTES 64

struct directory {
    int fd;
    int wd;
    unsigned handle_type;
    unsigned handle_size;
    unsigned char handle[HANDLE_BYTES];
};

static struct directory dirs[MAX_DIRS];
static int dir_count;
static volatile sig_atomic_t stopping;
static unsigned long long events, stats, expected;
static int notify_fd;
static int use_fanotify;

static void on_term(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

/* Each directory under ROOT, when the floor starts: opened, then watched (inotify) or its
 * handle kept (fanotify). */
static int add_directory(const char *path, const struct stat *status, int type, struct FTW *walk) {
    (void)status;
    (void)walk;
    if (type != FTW_D) return 0;
    if (dir_count == MAX_DIRS) {
        fprintf(stderr, "floor: more than %d directories\n", MAX_DIRS);
        exit(1);
    }
    struct directory *directory = &dirs[dir_count];
    directory->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory->fd < 0) fail(path);
    if (use_fanotify) {
        struct {
            struct file_handle header;
            unsigned char bytes[HANDLE_BYTES];
        } handle;
        int mount_id;
        handle.header.handle_bytes = HANDLE_BYTES;
        if (name_to_handle_at(directory->fd, "", &handle.header, &mount_id, AT_EMPTY_PATH) != 0)
            fail("name_to_handle_at");
        directory->handle_type = (unsigned)handle.header.handle_type;
        directory->handle_size = handle.header.handle_bytes;
        memcpy(directory->handle, handle.header.f_handle, handle.header.handle_bytes);
    } else {
        uint32_t mask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM |
                        IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;
        directory->wd = inotify_add_watch(notify_fd, path, mask);
        if (directory->wd < 0) fail("inotify_add_watch");
    }
    dir_count++;
    return 0;
}

static void stat_name(int directory_fd, const char *name) {
    struct statx status;
    if (statx(directory_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &status) == 0 || errno == ENOENT) stats++;
    if (stats == expected) {
        printf("done\n");
        fflush(stdout);
    }
}

/* The directory of a watch: watch descriptors are handed out in order from 1. */
static int inotify_directory(int wd) {
    for (int index = wd - 1 < dir_count && wd >= 1 ? wd - 1 : 0; index < dir_count; index++)
        if (dirs[index].wd == wd) return dirs[index].fd;
    return -1;
}

/* Each returns the number of events read. */
static unsigned long read_inotify(char *buffer, size_t size) {
    ssize_t length = read(notify_fd, buffer, size);
    if (length <= 0) return 0;
    unsigned long before = events;
    for (char *cursor = buffer; cursor < buffer + length;) {
        struct inotify_event *event = (struct inotify_event *)cursor;
        cursor += sizeof *event + event->len;
        events++;
        if (event->len == 0 || !(event->mask & IN_CLOSE_WRITE)) continue;
        int directory_fd = inotify_directory(event->wd);
        if (directory_fd >= 0) stat_name(directory_fd, event->name);
    }
    return events - before;
}

static int fanotify_directory(const struct file_handle *handle) {
    static int last = -1;
    if (last >= 0 && dirs[last].handle_size == handle->handle_bytes &&
        memcmp(dirs[last].handle, handle->f_handle, handle->handle_bytes) == 0)
        return dirs[last].fd;
    for (int index = 0; index < dir_count; index++) {
        if (dirs[index].handle_size == handle->handle_bytes &&
            (int)dirs[index].handle_type == handle->handle_type &&
            memcmp(dirs[index].handle, handle->f_handle, handle->handle_bytes) == 0) {
            last = index;
            return dirs[index].fd;
        }
    }
    return -1;
}

static unsigned long read_fanotify(char *buffer, size_t size) {
    ssize_t length = read(notify_fd, buffer, size);
    if (length <= 0) return 0;
    unsigned long before = events;
    struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer;
    for (; FAN_EVENT_OK(event, length); event = FAN_EVENT_NEXT(event, length)) {
        events++;
        if ((event->mask & FAN_ONDIR) || !(event->mask & FAN_CLOSE_WRITE)) continue;
        char *info = (char *)event + event->metadata_len;
        char *end = (char *)event + event->event_len;
        while (info < end) {
            struct fanotify_event_info_header *header = (struct fanotify_event_info_header *)info;
            if (header->len == 0) break;
            if (header->info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
                struct fanotify_event_info_fid *fid = (struct fanotify_event_info_fid *)header;
                struct file_handle *handle = (struct file_handle *)fid->handle;
                const char *name = (const char *)handle->f_handle + handle->handle_bytes;
                int directory_fd = fanotify_directory(handle);
                if (directory_fd >= 0) stat_name(directory_fd, name);
                break;
            }
            info += header->len;
        }
    }
    return events - before;
}

int main(int argc, char **argv) {
    if ((argc != 3 && argc != 4) || (strcmp(argv[1], "inotify") != 0 && strcmp(argv[1], "fanotify") != 0)) {
        fprintf(stderr, "usage: floor inotify|fanotify ROOT [FILES]\n");
        return 64;
    }
    use_fanotify = strcmp(argv[1], "fanotify") == 0;
    expected = argc == 4 ? strtoull(argv[3], NULL, 10) : 0;
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    if (use_fanotify) {
        notify_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE |
                                      FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID,
                                  O_RDONLY);
        if (notify_fd < 0) fail("fanotify_init");
    } else {
        notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (notify_fd < 0) fail("inotify_init1");
    }
    if (nftw(argv[2], add_directory, 64, FTW_PHYS | FTW_MOUNT) != 0) fail("nftw");
    if (use_fanotify) {
        uint64_t mask = FAN_CREATE | FAN_DELETE | FAN_RENAME | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ATTRIB |
                        FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR;
        if (fanotify_mark(notify_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask, AT_FDCWD, argv[2]) != 0)
            fail("fanotify_mark");
    }
    printf("ready\n");
    fflush(stdout);
    static char buffer[256 * 1024] __attribute__((aligned(8)));
    struct pollfd poller = {.fd = notify_fd, .events = POLLIN};
    while (!stopping) {
        if (poll(&poller, 1, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll");
        }
        unsigned long batch = use_fanotify ? read_fanotify(buffer, sizeof buffer) : read_inotify(buffer, sizeof buffer);
        if (batch < 4096) poll(NULL, 0, 2);
    }
    fprintf(stderr, "events %llu statx %llu\n", events, stats);
    return 0;
}
