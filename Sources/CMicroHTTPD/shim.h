#ifndef QUOTAWATCH_CMICROHTTPD_SHIM_H
#define QUOTAWATCH_CMICROHTTPD_SHIM_H
// libmicrohttpd from Debian's libmicrohttpd-dev: the Prometheus `/metrics` endpoint.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
#endif
