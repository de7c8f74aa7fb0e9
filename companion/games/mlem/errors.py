"""Typed errors of the rules core: every refusal says why, and the state is left unchanged."""


class RulesError(ValueError):
    """Base class: an input the rules core refuses."""


class InvalidActionError(RulesError):
    """The action is malformed: unknown words, faces that do not exist, the wrong number of dice."""


class IllegalActionError(RulesError):
    """The action is well formed but the rules do not allow it now."""


class BoardError(RulesError):
    """A board or token file that breaks the data rules; `problems` lists every one found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class SetupError(RulesError):
    """A game setup that is malformed; `key` names the offending setup key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"setup: {message}")
        self.key = key
