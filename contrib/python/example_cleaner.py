#!/usr/bin/env python3
"""An example registered cleaner: owns a cache directory and, when the daemon asks, removes
its oldest files until the directory is under the target the context names (or, without a
quota on it, every candidate older than --max-age).

    quotawatch run ~/app --config app.yaml --clean --socket "$XDG_RUNTIME_DIR/app.sock" &
    contrib/python/example_cleaner.py --socket "$XDG_RUNTIME_DIR/app.sock" \\
        --root ~/app --name feed Library/Caches/com.example.feed

Without --socket the daemon listens at a per-root default path: docs/service.md, "Socket
paths and whose socket it is", says which.

It re-reads its quota on every level change, as a business would, and prints what it does.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quotawatch_client import RegisteredCleaner, unescape  # noqa: E402


def make_handler(root, max_age_seconds, log):
    def clean(context):
        directory = context.get("directory")
        used = directory["used"] if directory else None
        target = directory["target"] if directory else None
        removed, freed = [], 0
        now_ms = time.time() * 1000
        for candidate in sorted(context["candidates"], key=lambda c: c["modified_ms"]):
            if target is not None and used <= target:
                break
            if target is None and now_ms - candidate["modified_ms"] < max_age_seconds * 1000:
                continue
            path = os.path.join(os.fsencode(root), unescape(candidate["path"]))
            try:
                os.unlink(path)
            except FileNotFoundError:
                continue
            removed.append(candidate["path"])
            freed += candidate["allocated"]
            if used is not None:
                used -= candidate["allocated"]
        log("context %s (%s): removed %d, freed %d" % (context["context"], context["trigger"]["kind"],
                                                       len(removed), freed))
        return {"freed": freed, "removed": removed}

    return clean


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--socket", required=True,
                        help="the daemon's control socket: its --socket, or the per-root default "
                        "(docs/service.md, 'Socket paths and whose socket it is')")
    parser.add_argument("--root", required=True, help="the daemon's ROOT (candidates are relative to it)")
    parser.add_argument("--name", default="example")
    parser.add_argument("--timeout-ms", type=int)
    parser.add_argument("--max-age", type=float, default=7 * 86400, help="seconds, without a quota")
    parser.add_argument("paths", nargs="+", help="the directories it owns, relative to ROOT")
    arguments = parser.parse_args()

    def log(text):
        print(text, flush=True)

    with RegisteredCleaner(arguments.socket, arguments.name, arguments.paths, arguments.timeout_ms) as cleaner:
        log("registered %s" % cleaner.greeting)
        for row in cleaner.quotas()["quotas"]:
            log("quota %s: %s of %s" % (row["path"], row["used"], row["effective_limit"]))

        def on_event(event):
            log("event %s" % event.get("event"))
            if event.get("event") == "level":
                for row in cleaner.quotas()["quotas"]:
                    log("quota %s: limit now %s" % (row["path"], row["effective_limit"]))

        cleaner.serve(make_handler(arguments.root, arguments.max_age, log), on_event=on_event)


if __name__ == "__main__":
    main()
