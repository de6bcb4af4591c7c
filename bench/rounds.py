"""How every bench turns paired rounds into one printed figure.

A round runs both sides of a comparison back to back, so that the machine's load at that moment
hits both; a figure is the median of the rounds' ratios, printed with their min-max and count
(`ratio=M (min a, max b, N paired rounds)`), never a ratio of two medians taken apart.
"""

import statistics


def ratios(num: list, den: list) -> list:
    """Round i's num[i] / den[i], sorted. The two lists come from the same rounds."""
    if len(num) != len(den) or not num:
        raise ValueError(f"paired rounds need equal, non-empty lists: {len(num)} and {len(den)}")
    return sorted(a / b for a, b in zip(num, den))


def ratio_line(num: list, den: list, digits: int = 2) -> str:
    """`ratio=M (min a, max b, N paired rounds)` for num / den."""
    r = ratios(num, den)
    f = f"{{:.{digits}f}}".format
    return f"ratio={f(statistics.median(r))} (min {f(r[0])}, max {f(r[-1])}, {len(r)} paired rounds)"


def spread(xs: list, unit: str = "s", digits: int = 3) -> str:
    """A side's median with its min-max: `1.234s (min 1.100, max 1.500)`."""
    f = f"{{:.{digits}f}}".format
    return f"{f(statistics.median(xs))}{unit} (min {f(min(xs))}, max {f(max(xs))})"
