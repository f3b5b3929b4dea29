"""Markdown tables, padded so the raw text reads as well as the rendered page."""


def table(headers: list[str], rows: list[list[str]], right_aligned: set[int] | None = None) -> str:
    if right_aligned is None:
        right_aligned = set(range(1, len(headers)))
    cells = [headers] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[column]) for row in cells) for column in range(len(headers))]

    def line(row):
        padded = [
            row[c].rjust(widths[c]) if c in right_aligned else row[c].ljust(widths[c]) for c in range(len(row))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = [
        ("-" * (widths[c] - 1) + ":") if c in right_aligned else "-" * widths[c] for c in range(len(headers))
    ]
    return "\n".join([line(headers), "| " + " | ".join(rule) + " |"] + [line(row) for row in cells[1:]])
