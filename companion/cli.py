"""The `companion` command (placeholder until the rules core lands)."""


def main() -> int:
    return 0
