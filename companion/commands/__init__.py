"""Subcommands of `companion`; each module exposes `register(subparsers)`."""
