"""Rewrites README.md's comparison block from one `scripts/bench all` section.

    python3 readme_table.py SECTION.md README.md

The block lies between the marker lines below; everything else in README.md is left alone.
Its rows are the section's target rows (tables of five cells whose last says whether the
target was met), so the README says what the dated section says.
"""

import re
import sys

BEGIN = "<!-- scripts/bench all: comparison table, generated; do not edit by hand -->"
END = "<!-- end of the generated comparison table -->"


def target_rows(section: str) -> list[list[str]]:
    rows, part = [], ""
    for line in section.splitlines():
        heading = re.match(r"^#### ([\w-]+)", line)
        if heading:
            part = heading.group(1)
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and cells[4] in ("met", "**not met**"):
            rows.append([part] + cells)
    return rows


def main() -> int:
    section_path, readme_path = sys.argv[1], sys.argv[2]
    section = open(section_path, encoding="utf-8").read()
    heading = next((line[4:] for line in section.splitlines() if line.startswith("### ")), "scripts/bench all")
    rows = target_rows(section)
    lines = [
        BEGIN,
        f"From `{heading}` in [docs/BENCHMARKS.md](docs/BENCHMARKS.md), where each figure has its",
        "reproducing command and its peers' figures:",
        "",
        "| part | case | figure | target | measured | verdict |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines.append(END)
    readme = open(readme_path, encoding="utf-8").read()
    start, stop = readme.find(BEGIN), readme.find(END)
    if start < 0 or stop < start:
        raise SystemExit(f"readme_table.py: {readme_path} has no generated block (the two marker lines)")
    readme = readme[:start] + "\n".join(lines) + readme[stop + len(END):]
    open(readme_path, "w", encoding="utf-8").write(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
