#ifndef QUOTAWATCH_CSQLITE_SHIM_H
#define QUOTAWATCH_CSQLITE_SHIM_H
// SQLite from Debian's libsqlite3-dev: the event history (`quotawatch history`).
#include <sqlite3.h>
#endif
