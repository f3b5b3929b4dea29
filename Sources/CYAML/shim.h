#ifndef QUOTAWATCH_CYAML_SHIM_H
#define QUOTAWATCH_CYAML_SHIM_H
// libyaml from Debian's libyaml-dev: only the config loader (QuotaWatchConfig) uses it.
#include <yaml.h>
#endif
