#ifndef QUOTAWATCH_CSYSTEMD_SHIM_H
#define QUOTAWATCH_CSYSTEMD_SHIM_H
// libsystemd from Debian's libsystemd-dev: sd_notify for `Type=notify` services.
#include <systemd/sd-daemon.h>
#endif
