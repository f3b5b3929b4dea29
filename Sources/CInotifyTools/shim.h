#ifndef QUOTAWATCH_CINOTIFYTOOLS_SHIM_H
#define QUOTAWATCH_CINOTIFYTOOLS_SHIM_H
// inotify.h must come along, or struct inotify_event arrives opaque.
#include <inotifytools/inotify.h>
#include <inotifytools/inotifytools.h>
#endif
