#!/usr/bin/env bash
# QuotaWatch alert hook: posts each event to an Alertmanager-compatible endpoint
# (POST URL/api/v2/alerts with a JSON array of alerts), so breaches and disk levels page
# whoever Alertmanager routes them to, and quota_ok / a level back to normal resolve them.
#
# Use it in the config:
#
#   hooks:
#     - name: alertmanager
#       command: [/usr/local/share/quotawatch/hooks/alertmanager.sh, "http://127.0.0.1:9093"]
#       events: [quota_warning, quota_breach, quota_ok, level, leftover, quota_forecast]
#       timeout: 15s
#
# Arguments: the Alertmanager base URL, and optionally how long an alert stays active without
# a resolving event, in seconds (default 86400; Alertmanager's own default would resolve an
# alert sent once after 5 minutes).
#
# It reads the event's JSON line on stdin. Labels: alertname (QuotaWatchQuota,
# QuotaWatchDiskLevel, QuotaWatchLeftover, QuotaWatchForecast, or QuotaWatch_<event>),
# severity (warning, critical or info), path (ROOT-relative; "/" for root-wide events) and
# instance (this host). Annotations: every field of the event, as text, and a summary. A quota
# or level that gets worse or better resolves the alert of the other severity, so exactly one
# stays active.
#
# Needs bash, python3 (to read and write JSON safely, whatever bytes a path holds) and curl.
# curl fails the hook (exit 22, shown in hook_failed with curl's message) when the endpoint
# answers with an HTTP error.
set -euo pipefail

if (($# < 1 || $# > 2)); then
    echo "usage: alertmanager.sh URL [ACTIVE_SECONDS]   e.g. alertmanager.sh http://127.0.0.1:9093" >&2
    exit 64
fi
url="${1%/}/api/v2/alerts"
active_seconds="${2:-86400}"
if [[ ! "$active_seconds" =~ ^[0-9]+$ ]]; then
    echo "alertmanager.sh: ACTIVE_SECONDS must be a whole number of seconds, got '$active_seconds'" >&2
    exit 64
fi
for tool in python3 curl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "alertmanager.sh: $tool is not installed (apt-get install $tool)" >&2
        exit 69
    fi
done

payload="$(
    QW_ACTIVE_SECONDS="$active_seconds" QW_INSTANCE="$(uname -n)" python3 -c '
import datetime, json, os, re, sys

line = sys.stdin.buffer.readline()
try:
    event = json.loads(line)
except ValueError as error:
    sys.exit(f"alertmanager.sh: stdin is not one JSON event ({error}): {line[:200]!r}")
kind = str(event.get("event", "unknown"))
now = datetime.datetime.now(datetime.timezone.utc)
starts = str(event.get("time") or now.isoformat())
ends_active = (now + datetime.timedelta(seconds=int(os.environ["QW_ACTIVE_SECONDS"]))).isoformat()

# alertname, and which severity this event makes active; None resolves every severity.
if kind in ("quota_warning", "quota_breach", "quota_ok"):
    name, active = "QuotaWatchQuota", {"quota_warning": "warning", "quota_breach": "critical"}.get(kind)
elif kind == "level":
    name, active = "QuotaWatchDiskLevel", {"warning": "warning", "critical": "critical"}.get(event.get("to"))
elif kind == "leftover":
    name, active = "QuotaWatchLeftover", "info"
elif kind == "quota_forecast":
    name, active = "QuotaWatchForecast", "warning"
else:
    name, active = "QuotaWatch_" + kind, "info"
# The severities an alert of this name can have, so that the other ones are resolved.
severities = ["warning", "critical"] if name in ("QuotaWatchQuota", "QuotaWatchDiskLevel") else [active]

annotations = {key: value if isinstance(value, str) else json.dumps(value) for key, value in event.items()}
def shown(text):
    """Text as QuotaWatch shows it to people: controls and direction overrides as \\xNN."""
    unsafe = lambda c: ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u061c\u200e\u200f" or (
        0x2028 <= ord(c) <= 0x202E) or 0x2066 <= ord(c) <= 0x2069
    return "".join("".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogateescape")) if unsafe(c) else c
                   for c in text)

def quoted(text):
    """A bare word, or double quotes with \\ and \" inside: no name can forge a field."""
    text = shown(text)
    if re.fullmatch(r"[A-Za-z0-9._/:@%+,*-]+", text):
        return text
    quote = chr(34)  # no single quote: this program is inside one in the shell
    return quote + text.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote

summary = kind + (" " + quoted(str(event["path"])) if event.get("path") else "")
for key in ("allocated", "limit", "free", "total", "idle_seconds", "seconds_to_breach"):
    if isinstance(event.get(key), (int, float)) and not isinstance(event.get(key), bool):
        summary += f" {key}={event[key]}"
annotations["summary"] = summary

alerts = []
for severity in severities:
    labels = {
        "alertname": name,
        "severity": severity,
        "path": str(event.get("path") or "/"),
        "instance": os.environ["QW_INSTANCE"],
    }
    ends = ends_active if severity == active else now.isoformat()
    alerts.append({"labels": labels, "annotations": annotations, "startsAt": starts, "endsAt": ends})
json.dump(alerts, sys.stdout, ensure_ascii=True)
'
)"

printf '%s' "$payload" | curl --fail --silent --show-error --max-time 10 \
    -H 'Content-Type: application/json' --data-binary @- "$url"
