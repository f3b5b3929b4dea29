#!/usr/bin/env bash
# QuotaWatch alert hook: posts each event to an Alertmanager-compatible endpoint
# (POST URL/api/v2/alerts with a JSON array of alerts), so breaches and disk levels page
# whoever Alertmanager routes them to, and the events that end them resolve them.
#
# Use it in the config:
#
#   hooks:
#     - name: alertmanager
#       command: [/usr/local/share/quotawatch/hooks/alertmanager.sh, "http://127.0.0.1:9093"]
#       events: [quota_warning, quota_breach, quota_ok, level, leftover, leftover_gone, quota_forecast]
#       timeout: 15s
#
# Arguments: the Alertmanager base URL, and optionally how long an alert stays active without
# a resolving event, in seconds (default 86400; Alertmanager's own default would resolve an
# alert sent once after 5 minutes).
#
# Alerts. Every alert is labelled alertname, severity, root (the daemon's ROOT), host (uname -n)
# and source="quotawatch-hook"; those of one directory also path (ROOT-relative) and rule (the
# quota's glob, or the leftover rule's name). An alert is one (alertname, root, host, path, rule):
# two rules on one directory are two alerts, and an event of one rule never resolves another's.
#
#   event                      fires                                resolves (same root, path, rule)
#   quota_breach               QuotaWatchQuotaBreach     warning    QuotaWatchQuotaWarning, QuotaWatchForecastBreach
#   quota_warning              QuotaWatchQuotaWarning    info       QuotaWatchQuotaBreach
#   quota_ok                   -                                    all three quota alerts
#   quota_forecast             QuotaWatchForecastBreach  info       (ends by itself at the forecast breach time)
#   level to critical          QuotaWatchDiskCritical    critical   QuotaWatchDiskWarning
#   level to warning           QuotaWatchDiskWarning     warning    QuotaWatchDiskCritical
#   level to normal            -                                    both disk alerts
#   leftover                   QuotaWatchLeftover        info
#   leftover_gone              -                                    QuotaWatchLeftover (removed by a
#                              cleaner or anyone, renamed away, or written again)
#   hook_failed                QuotaWatchHookFailed      warning    (labels hook, failed_event)
#   anything else              QuotaWatch_<event>        info
#
# The names and severities of QuotaWatchQuotaBreach, QuotaWatchDiskCritical and
# QuotaWatchForecastBreach are those of contrib/prometheus/alerts.yml, whose rules also carry
# root and host (joined from quotawatch_root_info), so routes and silences written for one
# cover the other. With both wired, the same breach arrives twice: at once from this hook, and
# after the rule's `for:` from Prometheus (with job and instance labels, without source). Keep
# one with an inhibit rule in alertmanager.yml: the hook's alert, while active, inhibits the
# rule's alert for the same thing; the rule's alert still fires when the daemon is down or the
# hook cannot post, and QuotaWatchDown / QuotaWatchAbsent say why.
#
#   inhibit_rules:
#     - source_matchers: [source="quotawatch-hook"]
#       target_matchers: [source!="quotawatch-hook", alertname=~"QuotaWatch.*"]
#       equal: [alertname, host, root, path, rule]
#
# Annotations: every field of the event, as text, and a summary.
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
    QW_ACTIVE_SECONDS="$active_seconds" QW_HOST="$(uname -n)" python3 -c '
import datetime, json, os, re, sys

line = sys.stdin.buffer.readline()
try:
    event = json.loads(line)
except ValueError as error:
    sys.exit(f"alertmanager.sh: stdin is not one JSON event ({error}): {line[:200]!r}")
kind = str(event.get("event", "unknown"))
now = datetime.datetime.now(datetime.timezone.utc)
starts = str(event.get("time") or now.isoformat())
active_for = int(os.environ["QW_ACTIVE_SECONDS"])

# (alertname, severity) this event fires, and those it resolves: see the table in the header.
breach, warning, forecast = ("QuotaWatchQuotaBreach", "warning"), ("QuotaWatchQuotaWarning", "info"), (
    "QuotaWatchForecastBreach", "info")
disk_critical, disk_warning = ("QuotaWatchDiskCritical", "critical"), ("QuotaWatchDiskWarning", "warning")
fires, resolves = None, []
if kind == "quota_breach":
    fires, resolves = breach, [warning, forecast]
elif kind == "quota_warning":
    fires, resolves = warning, [breach]
elif kind == "quota_ok":
    resolves = [breach, warning, forecast]
elif kind == "quota_forecast":
    fires = forecast
    seconds = event.get("seconds_to_breach")
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        active_for = max(60, min(active_for, seconds + 600))
elif kind == "level":
    to = event.get("to")
    fires = {"critical": disk_critical, "warning": disk_warning}.get(to)
    resolves = [alert for alert in (disk_critical, disk_warning) if alert != fires]
elif kind == "leftover":
    fires = ("QuotaWatchLeftover", "info")
elif kind == "leftover_gone":
    resolves = [("QuotaWatchLeftover", "info")]
elif kind == "hook_failed":
    fires = ("QuotaWatchHookFailed", "warning")
else:
    fires = ("QuotaWatch_" + kind, "info")

# What names one alert: its root and host always, and whichever of these the event has.
identity = {"root": str(event.get("root", "")), "host": os.environ["QW_HOST"], "source": "quotawatch-hook"}
for key in ("path", "rule", "hook", "failed_event"):
    if isinstance(event.get(key), str) and event[key]:
        identity[key] = event[key]

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
for key in ("allocated", "apparent", "limit", "rule", "free", "total", "idle_seconds", "seconds_to_breach", "reason"):
    value = event.get(key)
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        summary += f" {key}={quoted(str(value))}"
if event.get("root"):
    summary += " under " + quoted(str(event["root"]))
annotations["summary"] = summary

def alert(name_and_severity, ends):
    name, severity = name_and_severity
    labels = dict(identity, alertname=name, severity=severity)
    return {"labels": labels, "annotations": annotations, "startsAt": starts, "endsAt": ends}

try:
    started = datetime.datetime.fromisoformat(starts.replace("Z", "+00:00"))
except ValueError:
    started = now
# Alertmanager refuses an alert that ends before it starts.
resolved_at = max(now, started).isoformat()
alerts = [alert(name, resolved_at) for name in resolves]
if fires:
    alerts.append(alert(fires, (now + datetime.timedelta(seconds=active_for)).isoformat()))
json.dump(alerts, sys.stdout, ensure_ascii=True)
'
)"

printf '%s' "$payload" | curl --fail --silent --show-error --max-time 10 \
    -H 'Content-Type: application/json' --data-binary @- "$url"
