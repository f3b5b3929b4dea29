# shellcheck shell=bash
# Sourced by the scripts in scripts/: finds Swift and installs the Debian packages a script
# needs. Quiet and quick when everything is already there; apt-get runs only for what is missing.
#
#   source scripts/lib/deps.sh
#   qw_use_swift
#   qw_install_deps test    # test | demo | bench

# Puts the toolchain on PATH if it is installed but not found: $SWIFT_TOOLCHAIN first, then the
# conventional places a toolchain tarball or swiftly unpacks to.
qw_use_swift() {
    local prefix
    if ! command -v swift >/dev/null 2>&1; then
        for prefix in "${SWIFT_TOOLCHAIN:-}" /opt/swift /usr/share/swift "$HOME/.local/share/swiftly/toolchains/current"; do
            if [[ -n "$prefix" && -x "$prefix/usr/bin/swift" ]]; then
                export PATH="$prefix/usr/bin:$PATH"
                break
            fi
        done
    fi
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift is not on PATH; set SWIFT_TOOLCHAIN to the toolchain's root (the folder holding usr/bin/swift)" >&2
        return 1
    fi
}

# Installs each named Debian package that dpkg does not report as installed.
qw_require_packages() {
    local package status
    local missing=()
    for package in "$@"; do
        status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
        if [[ "$status" != "install ok installed" ]]; then
            missing+=("$package")
        fi
    done
    if ((${#missing[@]} == 0)); then
        return 0
    fi
    local as_root=()
    if ((EUID != 0)); then
        as_root=(sudo)
    fi
    echo "Installing ${missing[*]} (apt-get)..." >&2
    # Wait for a lock held by another apt run instead of failing at once.
    local apt=(apt-get -qq -o DPkg::Lock::Timeout=300)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" update >/dev/null
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# Installs what one script needs:
#   build  the C libraries QuotaWatch links: libinotifytools, libyaml, ncursesw, SQLite,
#          libmicrohttpd and libsystemd
#   test   build, coreutils' du (the oracle), tmux (drives the `watch` view), prometheus
#          (scrapes the metrics endpoint), prometheus-alertmanager (receives the
#          alertmanager.sh hook's alerts), btrfs-progs (a btrfs subvolume on a loop device,
#          for the deleter's mapping limit), zsh (checks the zsh completion script) and
#          shellcheck (lints the shipped hook scripts); a test needing one is skipped, saying so,
#          where it is missing
#   demo   build, and du for the comparison line
#   bench  build, and the tools QuotaWatch is measured against: gdu, watchman, inotifywait, hyperfine;
#          perf (linux-perf) to profile what a comparison measures
QW_BUILD_PACKAGES=(libinotifytools0-dev libyaml-dev libncurses-dev libsqlite3-dev libmicrohttpd-dev libsystemd-dev)
qw_install_deps() {
    case "${1:-}" in
    test) qw_require_packages "${QW_BUILD_PACKAGES[@]}" coreutils tmux prometheus prometheus-alertmanager man-db btrfs-progs python3 zsh shellcheck ;;
    demo) qw_require_packages "${QW_BUILD_PACKAGES[@]}" coreutils ;;
    bench) qw_require_packages "${QW_BUILD_PACKAGES[@]}" coreutils gdu watchman inotify-tools hyperfine linux-perf ;;
    *)
        echo "qw_install_deps: expected test, demo or bench, got '${1:-}'" >&2
        return 64
        ;;
    esac
}
