#!/usr/bin/env bash
# QuotaWatch alert hook: one readable line per event, shown as a desktop notification when a
# desktop session is there, and logged otherwise.
#
# Use it in the config (or with `run --hook quota_breach,level,leftover=scripts/hooks/notify.sh`):
#
#   hooks:
#     - name: notify
#       command: [/usr/local/share/quotawatch/hooks/notify.sh]
#       events: [quota_warning, quota_breach, quota_ok, level, leftover]
#       stdout: stderr          # the line also reaches the daemon's stderr (journald)
#
# What it does with the event (it reads only the QUOTAWATCH_* variables, not stdin):
#   - always prints the line on stdout: "quotawatch: quota_breach Library/Caches/Feed
#     allocated=210MB limit=200MB rule=Library/Caches/* …", the path and each value a bare word or in
#     double quotes ('\' and '"' inside as '\\' and '\"'), so a name cannot forge a field;
#   - `notify-send` when it is installed and a D-Bus session bus exists at
#     $XDG_RUNTIME_DIR/bus (or /run/user/UID/bus): a desktop notification for the user the
#     daemon runs as, critical for breaches and the critical level;
#   - otherwise `logger -t quotawatch` when a syslog socket (/dev/log) is there, and with
#     `--wall` also `wall` to every terminal (for servers without a desktop).
#
# Needs bash; notify-send (libnotify-bin), logger and wall (bsdutils) and numfmt (coreutils)
# are used when present. Exits 1 when the line reached no one (no desktop, no syslog, stdout
# is /dev/null and no --wall) or notify-send failed, so that shows up as hook_failed.
set -u

wall_too=false
for argument in "$@"; do
    case "$argument" in
    --wall) wall_too=true ;;
    *)
        echo "notify.sh: unknown argument '$argument' (expected --wall)" >&2
        exit 64
        ;;
    esac
done

# Drain stdin so the daemon's pipe is read; the variables carry the same fields.
cat >/dev/null

# A value as the line shows it: a plain word stays bare; anything else (a space, a quote, an
# '=') goes in double quotes with '\' written '\\' and '"' written '\"', so no value can end
# early and pass for another field. The daemon has already escaped every control character
# (QUOTAWATCH_PATH holds `\xNN` for them), so the line stays one line.
quoted() {
    local value="${1//[[:cntrl:]]/?}"
    if [[ ! "$value" =~ ^[A-Za-z0-9._/:@%+,*-]+$ ]]; then
        value="${value//\\/\\\\}"
        value="\"${value//\"/\\\"}\""
    fi
    printf '%s' "$value"
}

event="${QUOTAWATCH_EVENT:-event}"
[[ "$event" =~ ^[a-z_]+$ ]] || event=event
line="quotawatch: $event"
[[ -n "${QUOTAWATCH_PATH:-}" ]] && line+=" $(quoted "$QUOTAWATCH_PATH")"

# Every other field, in a stable order, read by name (never by parsing `env`, whose lines a
# value could forge); byte counts made readable when numfmt is there.
while read -r name; do
    case "$name" in
    QUOTAWATCH_EVENT | QUOTAWATCH_PATH | QUOTAWATCH_PATH_RAW | QUOTAWATCH_TIME) continue ;;
    esac
    value="${!name}"
    key="${name#QUOTAWATCH_}"
    key="${key,,}"
    if [[ "$value" =~ ^[0-9]+$ && "$key" =~ ^(allocated|apparent|limit|effective_limit|free|total|root_allocated)$ ]] &&
        command -v numfmt >/dev/null 2>&1; then
        value="$(numfmt --to=si --suffix=B "$value")"
    fi
    line+=" $key=$(quoted "$value")"
done < <(compgen -v QUOTAWATCH_ | LC_ALL=C sort)

echo "$line"
# A line printed anywhere but /dev/null (`stdout: stderr` or a file in the config) is delivered.
notified=false
[[ "$(readlink /proc/$$/fd/1 2>/dev/null)" != /dev/null ]] && notified=true

urgency=normal
case "$event" in
quota_breach | hook_failed) urgency=critical ;;
level) [[ "${QUOTAWATCH_TO:-}" == critical ]] && urgency=critical ;;
quota_ok) urgency=low ;;
esac

# Notification servers read the body as markup (<b>, <a href=…>): a name must not add any.
markup_escaped() {
    local text="${1//&/&amp;}"
    text="${text//</&lt;}"
    printf '%s' "${text//>/&gt;}"
}

bus_directory="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"
if command -v notify-send >/dev/null 2>&1 && [[ -S "$bus_directory/bus" ]]; then
    if ! DBUS_SESSION_BUS_ADDRESS="unix:path=$bus_directory/bus" \
        notify-send --app-name=QuotaWatch --urgency="$urgency" "QuotaWatch: $event" "$(markup_escaped "${line#quotawatch: }")"; then
        echo "notify.sh: notify-send failed" >&2
        exit 1
    fi
    exit 0
fi
if [[ -S /dev/log ]] && command -v logger >/dev/null 2>&1; then
    priority=user.notice
    [[ "$urgency" == critical ]] && priority=user.crit
    logger -t quotawatch -p "$priority" -- "$line" && notified=true
fi
if $wall_too && command -v wall >/dev/null 2>&1; then
    echo "$line" | wall && notified=true
fi
if ! $notified; then
    echo "notify.sh: nowhere to notify: no notify-send with a session bus at $bus_directory/bus, no /dev/log for logger, stdout is /dev/null; set 'stdout: stderr' or pass --wall" >&2
    exit 1
fi
