"""What each seat may see: the one place that decides which of the table's information is secret.

The rulebooks hide one thing from the other players: the secret missions (spec section 7.3, [JA],
[DE]). Each player is dealt four face down, keeps three face down and discards one; the kept ones
are turned up for the final scoring. So:

- a player's mission tokens are seen by their owner only, until the game is over; then everyone
  sees the kept ones (a discarded one never comes back);
- nobody sees the deal: the pile, or which token goes to whom (hands are dealt in seat order, so
  naming a draw would name its owner's mission);
- a player's mission points are part of that secret: before the end, other viewers get the score
  without them (a jump from 0 to 2 as Anna lands on M9a would give her mission away).

Everything else lies open on the table (board, rocket, dice, supplies, goals, how many missions
each player holds). The UFO and exploration piles are face down too, but the state keeps no
order for them (a draw is a chance node), so they hold nothing to hide.

A viewer is a seat, or PUBLIC: the OLED, the shared web page, anyone watching. So the variant
needs a private screen: each owner reads their missions on their phone (or the host's, passed
round); the table's buttons can still choose a mission, by slot (see MissionSlot).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

from .state import Phase, State

PUBLIC: Final = None
"""The viewer who is nobody in particular: what the whole table may see."""


@dataclass(frozen=True, slots=True)
class MissionSlot:
    """One mission token in a hand as a viewer sees it; `token` and `target` are None if hidden.

    `slot` counts from 1 in the order the hand was dealt (and stays in that order after the
    discard). It is the one name for a token that reveals nothing: the owner reads their hand by
    slot on their phone and can choose "Mission 2" on the table's buttons, while everyone else
    learns only that a slot was chosen.
    """

    slot: int
    token: str | None
    target: str | None


def sees_hand(state: State, viewer: int | None, owner: int) -> bool:
    """Whether `viewer` may see `owner`'s missions: the owner, or anyone once the game is over."""
    return viewer == owner or state.phase is Phase.GAME_OVER


def sees_decision(state: State, viewer: int | None) -> bool:
    """Whether `viewer` may see the pending decision's legal actions (they can name missions).

    Nobody sees the deal's draws; only the discarding player sees their discard's options.
    """
    if state.phase is Phase.DEAL_MISSIONS:
        return False
    if state.phase is Phase.DISCARD_MISSION:
        return sees_hand(state, viewer, state.current_player())
    return True


def hand(state: State, viewer: int | None, owner: int) -> tuple[MissionSlot, ...]:
    """`owner`'s mission tokens (dealt, then kept) as `viewer` sees them, slot by slot."""
    visible = sees_hand(state, viewer, owner)
    tokens = state.game.tokens
    return tuple(
        MissionSlot(n, token, tokens.mission_by_id(token).target) if visible
        else MissionSlot(n, None, None)
        for n, token in enumerate(state.mission_hands[owner], start=1))


def observation(state: State, viewer: int | None) -> dict[str, Any]:
    """The state as `viewer` (a seat, or PUBLIC) may see it, as plain JSON types.

    `State.to_json()` less what the viewer may not see, plus `missions`: each seat's hand by
    slot (None without the missions variant).
    """
    data = state.to_json()
    if not sees_decision(state, viewer):
        data["legal_actions"] = []
    if not state.game.has("missions"):
        data["missions"] = None
        return data
    data["missions"] = [[asdict(s) for s in hand(state, viewer, seat)]
                        for seat in range(state.game.num_players)]
    players = []
    for player in data["players"]:
        score = player["score"]
        if not sees_hand(state, viewer, player["seat"]):
            score = {**score, "missions": None, "total": score["total"] - score["missions"]}
        players.append({**player, "score": score})
    data["players"] = players
    return data
