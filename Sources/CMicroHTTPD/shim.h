#ifndef QUOTAWATCH_CMICROHTTPD_SHIM_H
#define QUOTAWATCH_CMICROHTTPD_SHIM_H
// libmicrohttpd from Debian's libmicrohttpd-dev: the Prometheus `/metrics` endpoint.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

// MHD_get_connection_info is variadic, which Swift cannot call: the client's address, or NULL.
static inline const struct sockaddr *quotawatch_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
#endif
