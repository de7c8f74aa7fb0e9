"""The MLEM game state: who acts, what is legal, and what an action does (MLEM-SPEC.md section 3).

The state is a small state machine after OpenSpiel: `current_player()` is a seat, CHANCE (a roll or
a token draw, supplied from outside: P1) or TERMINAL. `apply_action` checks legality at the door,
raises a typed error that says why, and leaves the state unchanged when it refuses.
"""

from __future__ import annotations

from collections import Counter
from enum import Enum
from fractions import Fraction
from typing import Any

from .actions import (
    Action,
    Crash,
    Discard,
    Draw,
    Land,
    Move,
    Place,
    Reroll,
    Roll,
    Stay,
    normalize,
    parse_action,
)
from .board import COMET, GALAXY
from .dice import DICE_IN_GAME, roll_distribution
from .errors import IllegalActionError, InvalidActionError
from .game import (
    EXPLORATION_ON_BOARD,
    GOAL_POINTS,
    MISSIONS_DEALT,
    MISSIONS_KEPT,
    UFO_TOKEN_VALUES,
    Game,
)
from .landing import deep_space_targets, landing_targets, space_targets
from .scoring import (
    GOALS,
    MISSION_POINTS,
    Placement,
    ScoreBreakdown,
    goals_met,
    missions_completed,
    planet_awards,
    winners,
)
from .tokens import ExpeditionToken
from .travel import TravelContext

CHANCE = -1
TERMINAL = -4


class Phase(Enum):
    """Where the state machine waits."""

    DEAL_MISSIONS = "deal_missions"  # chance: secret missions dealt one by one
    DISCARD_MISSION = "discard_mission"  # each player gives up one dealt mission
    REVEAL_EXPLORATION = "reveal_exploration"  # chance: an exploration token onto its space
    REVEAL_EXPEDITION = "reveal_expedition"  # chance: the UFO expedition token at takeoff
    PLACE = "place"  # takeoff: each player puts an astronaut aboard
    ROLL = "roll"  # chance: the captain rolls the available dice
    CHOOSE = "choose"  # the captain picks the groups (or rerolls, or declines)
    LANDING = "landing"  # an astronaut aboard decides to land or stay
    DEEP_SPACE = "deep_space"  # a +/-1 astronaut picks galaxy/comet or a target one space back
    PARACHUTE = "parachute"  # after a crash, a parachute astronaut lands or returns
    GAME_OVER = "game_over"

    # Members are singletons: identity hashing is exact, and C-fast in the hot loop.
    __hash__ = object.__hash__


CHANCE_PHASES = frozenset(
    {Phase.DEAL_MISSIONS, Phase.REVEAL_EXPLORATION, Phase.REVEAL_EXPEDITION, Phase.ROLL}
)
DICE_1, DICE_X, SATELLITE, PARACHUTE_KIND = "dice_1", "dice_x", "satellite", "parachute"
MOON_X2, DEEP_SPACE_X2 = "moon_x2", "deep_space_x2"


class State:
    """One position of one game. Mutable; `clone()` copies it, `undo()` replays the record."""

    def __init__(self, game: Game) -> None:
        self.game = game
        board = game.board
        n = game.num_players
        kinds = Counter(game.config.astronaut_set)
        self.history: list[Action] = []
        self.phase = Phase.PLACE
        self.starter = game.config.starter
        self.expedition = 1
        self.pending: list[int] = []
        """Seats still to act in this phase, in order (placing, landing, parachute, ...)."""
        self.rocket: list[tuple[int, str]] = []
        """(seat, kind) aboard, top first; rocket[0] is the captain."""
        self.space = 0
        self.departure = 0
        self.available = DICE_IN_GAME
        self.roll: tuple[str, ...] = ()
        self._choice: TravelContext | None = None
        """The units of the roll being chosen from (phase CHOOSE only): fixed until it ends."""
        self.crash_count = 0
        self.supply: list[dict[str, int]] = [dict(kinds) for _ in range(n)]
        self.dice1_used: set[int] = set()
        self.placements: list[Placement] = []
        self.moon_occupant: dict[str, int] = {}
        self.goals: dict[str, int] = {}
        self.moon_points = [0] * n
        self.deep_points = [0] * n
        self.deep_captain = -1
        self.end_reason = ""
        # UFO variant
        self.ufo_position = board.ufo_start
        self.ufo_stack = list(UFO_TOKEN_VALUES)
        self.ufo_pile = [t.id for t in game.tokens.expedition]
        self.ufo_token = ""
        self.ufo_ability_used = False
        self.ufo_won: list[list[int]] = [[] for _ in range(n)]
        # Exploration variant
        self.explore_pile = [t.id for t in game.tokens.exploration]
        self.explore_on_board: dict[int, str] = {}
        self.explore_to_reveal = EXPLORATION_ON_BOARD if game.has("exploration") else 0
        self.explore_won: list[list[int]] = [[] for _ in range(n)]
        self.tunnel_pending = False
        # Secret missions variant
        self.mission_pile = [t.id for t in game.tokens.missions]
        self.mission_hands: list[list[str]] = [[] for _ in range(n)]
        self._begin_setup()

    # ----------------------------------------------------------------- the OpenSpiel-style API

    def current_player(self) -> int:
        """The seat to act, CHANCE or TERMINAL."""
        if self.phase is Phase.GAME_OVER:
            return TERMINAL
        if self.phase in CHANCE_PHASES:
            return CHANCE
        if self.phase is Phase.CHOOSE:
            return self.rocket[0][0]
        return self.pending[0]

    def is_chance_node(self) -> bool:
        return self.phase in CHANCE_PHASES

    def is_terminal(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def captain(self) -> int | None:
        """Seat of the captain (the top astronaut), if anyone is aboard."""
        return self.rocket[0][0] if self.rocket else None

    @property
    def removed(self) -> int:
        """Dice out of play this expedition; available + removed is always 6."""
        return DICE_IN_GAME - self.available

    def legal_actions(self) -> list[Action]:
        """Every legal action now (chance outcomes at a chance node), in a stable order."""
        phase = self.phase
        if phase is Phase.CHOOSE:
            return self._choose_actions()
        if phase in CHANCE_PHASES:
            return [action for action, _ in self.chance_outcomes()]
        if phase is Phase.PLACE:
            supply = self.supply[self.pending[0]]
            return [Place(kind) for kind in supply if supply[kind] > 0]
        if phase is Phase.DISCARD_MISSION:
            return [Discard(token) for token in self.mission_hands[self.pending[0]]]
        if phase in (Phase.LANDING, Phase.PARACHUTE):
            return [*(Land(t) for t in self._targets_of_pending()), Stay()]
        if phase is Phase.DEEP_SPACE:
            return [Land(t) for t in self._targets_of_pending()]
        return []

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a chance node, every outcome with its exact probability (they sum to 1)."""
        phase = self.phase
        if phase is Phase.ROLL:
            return [(Roll(faces), p) for faces, p in roll_distribution(self.available)]
        pile = self.draw_pile()
        if not pile:
            return []
        return [(Draw(token), Fraction(1, len(pile))) for token in pile]

    def draw_pile(self) -> list[str]:
        """At a token draw, the tokens that can come up (sorted); empty elsewhere."""
        if self.phase is Phase.DEAL_MISSIONS:
            return sorted(self.mission_pile)
        if self.phase is Phase.REVEAL_EXPEDITION:
            return sorted(self.ufo_pile)
        if self.phase is Phase.REVEAL_EXPLORATION:
            return sorted(self._revealable_exploration())
        return []

    def apply_action(self, action: Action | str) -> None:
        """Apply a legal action (or its text form).

        :raises InvalidActionError: the action is malformed (for example a roll with a 6).
        :raises IllegalActionError: the rules do not allow it now; the message says why.
        """
        action = parse_action(action) if isinstance(action, str) else normalize(action)
        if self.phase is Phase.GAME_OVER:
            raise IllegalActionError("the game is over")
        handler = _HANDLERS.get((self.phase, type(action)))
        if handler is None:
            raise IllegalActionError(f"{action} is not possible now: {self.expecting()}")
        handler(self, action)
        self.history.append(action)

    def clone(self) -> State:
        """An independent copy (the game and its data are shared: they never change)."""
        other = State.__new__(State)
        other.__dict__.update(self.__dict__)
        for name in ("history", "pending", "rocket", "placements", "moon_points", "deep_points",
                     "ufo_stack", "ufo_pile", "explore_pile", "mission_pile"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("moon_occupant", "goals", "explore_on_board"):
            setattr(other, name, dict(getattr(self, name)))
        other.dice1_used = set(self.dice1_used)
        other.supply = [dict(s) for s in self.supply]
        other.ufo_won = [list(x) for x in self.ufo_won]
        other.explore_won = [list(x) for x in self.explore_won]
        other.mission_hands = [list(x) for x in self.mission_hands]
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        mine, theirs = dict(self.__dict__), dict(other.__dict__)
        return (mine.pop("game").config == theirs.pop("game").config) and mine == theirs

    __hash__ = None  # type: ignore[assignment]

    def undo(self, steps: int = 1) -> None:
        """Take back the last `steps` actions by replaying the rest from the start."""
        if not 0 <= steps <= len(self.history):
            raise IllegalActionError(f"cannot undo {steps} of {len(self.history)} actions")
        replay = self.game.new_initial_state()
        for action in self.history[: len(self.history) - steps]:
            replay.apply_action(action)
        self.__dict__.update(replay.__dict__)

    # ----------------------------------------------------------------------- what is expected

    def expecting(self) -> str:
        """A sentence saying what the state waits for (used in refusals and prompts)."""
        names = self.game.config.players
        phase = self.phase
        if phase is Phase.GAME_OVER:
            return "the game is over"
        if phase is Phase.ROLL:
            return f"a roll of {self.available} dice"
        if phase in CHANCE_PHASES:
            return "a token draw"
        who = names[self.current_player()]
        return {
            Phase.PLACE: f"{who} to place an astronaut",
            Phase.DISCARD_MISSION: f"{who} to discard a mission",
            Phase.CHOOSE: f"{who} (captain) to choose a move",
            Phase.LANDING: f"{who} to land or stay",
            Phase.DEEP_SPACE: f"{who} to choose where to land in deep space",
            Phase.PARACHUTE: f"{who} to land by parachute or return",
        }[phase]

    def travel_context(self, departure: int | None = None) -> TravelContext:
        """The units of the current roll (phase CHOOSE), or of a roll from `departure`."""
        if departure is None:
            if self._choice is not None:
                return self._choice
            departure = self.departure
        space = self.game.board.spaces[departure]
        token = self._ufo_token()
        ability_ready = token is not None and not self.ufo_ability_used
        extra: tuple[str, ...] = ()
        if ability_ready and token is not None and token.ability == "extra_dice":
            extra = tuple(face for face in token.extra_faces if face in space.faces)
        dice1: tuple[int, ...] = ()
        if "1" in space.faces:
            dice1 = tuple(sorted(seat for seat, kind in self.rocket
                                 if kind == DICE_1 and seat not in self.dice1_used))
        return TravelContext(
            space=departure,
            allowed=space.faces,
            fuel_value=space.fuel,
            roll=self.roll,
            dice1_seats=dice1,
            ufo_extra=extra,
            keep_available=ability_ready and token is not None and token.ability == "keep_dice",
        )

    def reroll_available(self) -> bool:
        token = self._ufo_token()
        return token is not None and token.ability == "reroll" and not self.ufo_ability_used

    # ------------------------------------------------------------------------ setup and takeoff

    def _begin_setup(self) -> None:
        if self.game.has("missions"):
            self.phase = Phase.DEAL_MISSIONS
        else:
            self._after_missions()

    def _apply_deal(self, action: Draw) -> None:
        if action.token not in self.mission_pile:
            raise IllegalActionError(f"mission {action.token} is not in the pile")
        dealt = sum(len(hand) for hand in self.mission_hands)
        self.mission_pile.remove(action.token)
        self.mission_hands[dealt // MISSIONS_DEALT].append(action.token)
        if dealt + 1 == MISSIONS_DEALT * self.game.num_players:
            self.phase = Phase.DISCARD_MISSION
            self.pending = self._clockwise_from(self.starter)

    def _apply_discard(self, action: Discard) -> None:
        hand = self.mission_hands[self.pending[0]]
        if action.token not in hand:
            raise IllegalActionError(f"{action.token} is not in this player's hand {hand}")
        hand.remove(action.token)
        self.pending.pop(0)
        if not self.pending:
            self._after_missions()

    def _after_missions(self) -> None:
        if self.explore_to_reveal and self._revealable_exploration():
            self.phase = Phase.REVEAL_EXPLORATION
        else:
            self.explore_to_reveal = 0
            self._start_takeoff()

    def _revealable_exploration(self) -> list[str]:
        """Pile tokens whose printed space is free (X5: a conflicting one goes back and redraws)."""
        tokens = self.game.tokens
        return [tid for tid in self.explore_pile
                if tokens.exploration_by_id(tid).space not in self.explore_on_board]

    def _apply_reveal_exploration(self, action: Draw) -> None:
        if action.token not in self._revealable_exploration():
            raise IllegalActionError(
                f"exploration token {action.token} is not in the pile or its space is taken"
            )
        self.explore_pile.remove(action.token)
        self.explore_on_board[self.game.tokens.exploration_by_id(action.token).space] = action.token
        if self.explore_to_reveal:  # setup: five tokens onto the mat
            self.explore_to_reveal -= 1
            self._after_missions()
        else:  # a replacement during a travel phase
            self._continue_end_of_travel()

    def _start_takeoff(self) -> None:
        self.space = 0
        self.available = DICE_IN_GAME
        self.ufo_token = ""
        self.ufo_ability_used = False
        if self.game.has("ufo"):
            if not self.ufo_pile and self.game.config.rules.ufo_reshuffle:
                self.ufo_pile = [t.id for t in self.game.tokens.expedition]
            if self.ufo_pile:
                self.phase = Phase.REVEAL_EXPEDITION
                return
        self._start_placement()

    def _apply_reveal_expedition(self, action: Draw) -> None:
        if action.token not in self.ufo_pile:
            raise IllegalActionError(f"expedition token {action.token} is not in the pile")
        self.ufo_pile.remove(action.token)
        self.ufo_token = action.token
        self.available = self.game.tokens.expedition_by_id(action.token).dice
        self._start_placement()

    def _start_placement(self) -> None:
        self.phase = Phase.PLACE
        self.pending = self._clockwise_from(self.starter)
        # R-T3: a player with every astronaut on the mat has already ended the game
        assert all(any(self.supply[seat].values()) for seat in self.pending)

    def _apply_place(self, action: Place) -> None:
        seat = self.pending[0]
        if self.supply[seat].get(action.kind, 0) == 0:
            have = sorted(kind for kind, count in self.supply[seat].items() if count)
            raise IllegalActionError(f"no {action.kind} in this player's supply (has: {have})")
        self.supply[seat][action.kind] -= 1
        self.rocket.append((seat, action.kind))
        self.pending.pop(0)
        if not self.pending:
            if any(kind == SATELLITE for _, kind in self.rocket):
                self.space = self.game.board.satellite_start
            self._start_roll()

    # ------------------------------------------------------------------------------ travel

    def _start_roll(self) -> None:
        self.phase = Phase.ROLL
        self.departure = self.space
        self.roll, self._choice = (), None

    def _apply_roll(self, action: Roll) -> None:
        if len(action.faces) != self.available:
            raise InvalidActionError(
                f"a roll of {len(action.faces)} dice, but {self.available} are available"
            )
        self.roll = action.faces
        context = self.travel_context()
        if context.has_units() or self.reroll_available():
            self.phase = Phase.CHOOSE
            self._choice = context
        else:
            self._crash()

    def _choose_actions(self) -> list[Action]:
        context = self.travel_context()
        actions: list[Action] = list(context.legal_moves())
        if self.reroll_available():
            actions.append(Reroll())
        if self._crash_allowed(context):
            actions.append(Crash())
        return actions

    def _crash_allowed(self, context: TravelContext) -> bool:
        if context.groups:
            return False
        if context.ability_units:
            return self.game.config.rules.ability_units_optional
        return True  # nothing usable, only a reroll on offer: the captain may accept the crash

    def _apply_reroll(self, _action: Reroll) -> None:
        if not self.reroll_available():
            raise IllegalActionError("no unused UFO reroll ability")
        self.ufo_ability_used = True
        self.phase = Phase.ROLL
        self.roll, self._choice = (), None

    def _apply_crash(self, _action: Crash) -> None:
        context = self.travel_context()
        if not self._crash_allowed(context):
            reason = ("the roll has usable dice: a move is mandatory" if context.groups
                      else "the ability units must be used (ability_units_optional is off)")
            raise IllegalActionError(reason)
        self._crash()

    def _apply_move(self, move: Move) -> None:
        context = self.travel_context()
        context.check_move(move)
        board = self.game.board
        self.space = min(self.departure + context.distance(move), board.last_space)
        if move.ufo or move.keep:
            self.ufo_ability_used = True
        if not move.keep:
            self.available -= context.dice_consumed(move)
            if self.available == 0:
                self.available = 1  # the one die that always comes back (R-V5)
        self.dice1_used.update(move.dice1)
        self.roll, self._choice = (), None
        self._end_of_travel()

    def _end_of_travel(self) -> None:
        """R-V6: the UFO check, then the exploration token, at the space the travel ended on."""
        captain = self.rocket[0][0]
        if self.game.has("ufo") and self.space == self.ufo_position and self.ufo_stack:
            self.ufo_won[captain].append(self.ufo_stack.pop(0))
        token_id = self.explore_on_board.pop(self.space, None)
        if token_id is None:
            self._after_travel()
            return
        token = self.game.tokens.exploration_by_id(token_id)
        if token.kind == "points":
            self.explore_won[captain].append(token.points)
        elif token.kind == "dice_recovery":
            self.available = min(self.available + 1, DICE_IN_GAME)
        else:  # tunnel: four spaces on, and the travel phase ends again there (X4, A29)
            self.space = min(self.space + 4, self.game.board.last_space)
            self.tunnel_pending = True
        if self._revealable_exploration():
            self.phase = Phase.REVEAL_EXPLORATION
        else:
            self._continue_end_of_travel()

    def _continue_end_of_travel(self) -> None:
        if self.tunnel_pending:
            self.tunnel_pending = False
            self._end_of_travel()
        else:
            self._after_travel()

    def _after_travel(self) -> None:
        """R-V7: deep space, another roll below the landing spaces, or a landing phase."""
        board = self.game.board
        if self.space == board.last_space:
            self.deep_captain = self.rocket[0][0]
            self.phase = Phase.DEEP_SPACE
            self.pending = [seat for seat, _ in self.rocket]
            self._next_deep_space()
        elif self.space < board.no_landing_below:
            self._start_roll()
        else:
            self.phase = Phase.LANDING
            self.pending = [seat for seat, _ in self.rocket]
            self._next_decision()

    # -------------------------------------------------------------- landing, deep space, crash

    def _kind_aboard(self, seat: int) -> str:
        return next(kind for s, kind in self.rocket if s == seat)

    def _targets_of_pending(self) -> list[str]:
        seat = self.pending[0]
        kind = self._kind_aboard(seat)
        board = self.game.board
        if self.phase is Phase.LANDING:
            return landing_targets(board, kind, self.space, self.moon_occupant)
        if self.phase is Phase.PARACHUTE:
            if self.space < board.no_landing_below:
                return []
            return space_targets(board, self.space, self.moon_occupant)
        return deep_space_targets(board, kind, seat == self.deep_captain, self.moon_occupant)

    def _next_decision(self) -> None:
        """Skip astronauts with nothing to decide; end the phase when nobody is left."""
        while self.pending and not self._targets_of_pending():
            self.pending.pop(0)
        if self.pending:
            return
        if self.phase is Phase.PARACHUTE or not self.rocket:
            self._end_expedition()
        else:
            self._start_roll()

    def _next_deep_space(self) -> None:
        """Place everyone with a single option; stop at a +/-1 astronaut that has a choice."""
        while self.pending:
            targets = self._targets_of_pending()
            if len(targets) > 1:
                return
            self._disembark(self.pending.pop(0), targets[0])
            if self.phase is Phase.GAME_OVER:
                return
        self._end_expedition()

    def _apply_land(self, action: Land) -> None:
        targets = self._targets_of_pending()
        if action.target not in targets:
            raise IllegalActionError(
                f"cannot land on {action.target} now (possible: {', '.join(targets) or 'none'})"
            )
        seat = self.pending.pop(0)
        kind = self._kind_aboard(seat)
        others_aboard = len(self.rocket) > 1
        self._disembark(seat, action.target)
        if self.phase is Phase.GAME_OVER:
            return
        if self.phase is Phase.DEEP_SPACE:
            self._next_deep_space()
            return
        if (self.phase is Phase.LANDING and kind == DICE_X and others_aboard
                and self.available > 1):
            self.available -= 1  # dice X: as if used in the travel phase (4.7, A11)
        self._next_decision()

    def _apply_stay(self, _action: Stay) -> None:
        self.pending.pop(0)
        self._next_decision()

    def _crash(self) -> None:
        self.crash_count = min(self.crash_count + 1, self.game.board.crash_track_length)
        self.roll, self._choice = (), None
        self.phase = Phase.PARACHUTE
        self.pending = [seat for seat, kind in self.rocket if kind == PARACHUTE_KIND]
        self._next_decision()

    def _disembark(self, seat: int, target: str) -> None:
        """Place, score, check goals, leave the rocket (R-L5 steps 1-3 and 5)."""
        kind = self._kind_aboard(seat)
        board = self.game.board
        self.rocket.remove((seat, kind))
        self.placements.append(Placement(len(self.placements) + 1, seat, kind, target))
        if target in board.planets:
            pass  # planets score at game end
        elif target in (COMET, GALAXY):
            points = board.comet_points if target == COMET else board.galaxy_points
            self.deep_points[seat] += points * (2 if kind == DEEP_SPACE_X2 else 1)
        else:
            self.moon_occupant[target] = seat
            self.moon_points[seat] += board.moons[target].points * (2 if kind == MOON_X2 else 1)
        literal = self.game.config.rules.goal_check == "landing_phase"
        if not (literal and self.phase is Phase.PARACHUTE):
            for goal in goals_met(board, self.placements, seat):
                self.goals.setdefault(goal, seat)
        if (self.game.config.rules.end_timing == "immediate"
                and self._all_placed(seat)):
            self._finish(f"{self.game.config.players[seat]} placed every astronaut")

    def _all_placed(self, seat: int) -> bool:
        placed = sum(1 for p in self.placements if p.seat == seat)
        return placed == len(self.game.config.astronaut_set)

    # --------------------------------------------------------------------- expedition end

    def _end_expedition(self) -> None:
        self._return_rocket()
        self.dice1_used.clear()
        names = self.game.config.players
        if self.crash_count >= self.game.board.crash_track_length:
            self._finish(f"crash number {self.crash_count}")
            return
        done = [seat for seat in range(len(names)) if self._all_placed(seat)]
        if done:
            self._finish(f"{names[done[0]]} placed every astronaut")
            return
        token = self._ufo_token()
        if token is not None:
            self.ufo_position = max(0, self.ufo_position - token.ufo_move)
        self.starter = (self.starter + 1) % len(names)
        self.expedition += 1
        self._start_takeoff()

    def _return_rocket(self) -> None:
        for seat, kind in self.rocket:
            self.supply[seat][kind] += 1
        self.rocket.clear()

    def _finish(self, reason: str) -> None:
        self._return_rocket()
        self.pending = []
        self.phase = Phase.GAME_OVER
        self.end_reason = reason

    # ----------------------------------------------------------------------------- scores

    def scores(self) -> list[ScoreBreakdown]:
        """Score breakdown per seat; planets and missions are as if the game ended now."""
        board = self.game.board
        awards = planet_awards(board, self.placements)
        result = []
        for seat in range(self.game.num_players):
            dealing = self.phase in (Phase.DEAL_MISSIONS, Phase.DISCARD_MISSION)
            kept = [] if dealing else self.mission_hands[seat][:MISSIONS_KEPT]
            targets = [self._mission_target(tid) for tid in kept]
            done = missions_completed(board, self.placements, seat, targets)
            result.append(ScoreBreakdown(
                moons=self.moon_points[seat],
                deep_space=self.deep_points[seat],
                planets=awards.get(seat, 0),
                goals=GOAL_POINTS * sum(1 for owner in self.goals.values() if owner == seat),
                ufo=sum(self.ufo_won[seat]),
                exploration=sum(self.explore_won[seat]),
                missions=MISSION_POINTS[done],
            ))
        return result

    def returns(self) -> list[int]:
        """Final totals per seat (OpenSpiel's returns; provisional before the end)."""
        return [s.total for s in self.scores()]

    def winners(self) -> list[int]:
        """Seats sharing the highest total; empty until the game is over."""
        return winners(self.returns()) if self.is_terminal() else []

    def _mission_target(self, token_id: str) -> str:
        return next(t.target for t in self.game.tokens.missions if t.id == token_id)

    def _ufo_token(self) -> ExpeditionToken | None:
        return self.game.tokens.expedition_by_id(self.ufo_token) if self.ufo_token else None

    def _clockwise_from(self, seat: int) -> list[int]:
        n = self.game.num_players
        return [(seat + i) % n for i in range(n)]

    # ----------------------------------------------------------------------------- views

    def placed(self, seat: int) -> list[Placement]:
        return [p for p in self.placements if p.seat == seat]

    def goal_owners(self) -> dict[str, int | None]:
        return {goal: self.goals.get(goal) for goal in GOALS}

    def to_json(self) -> dict[str, Any]:
        """The state as plain JSON types, as someone who may see everything sees it (a replay).

        What a person at the table may see is `observation.observation`: this less the others'
        secret missions (legal discards, mission points).
        """
        game = self.game
        names = game.config.players
        scores = self.scores()
        return {
            "phase": self.phase.value,
            "expecting": self.expecting(),
            "current_player": self.current_player(),
            "players": [
                {"seat": seat, "name": name, "supply": sorted(
                    kind for kind, count in self.supply[seat].items() for _ in range(count)),
                 "score": scores[seat].to_json()}
                for seat, name in enumerate(names)
            ],
            "expedition": self.expedition,
            "starter": self.starter,
            "captain": self.captain,
            "rocket": [{"seat": seat, "kind": kind} for seat, kind in self.rocket],
            "space": self.space,
            "departure": self.departure,
            "available": self.available,
            "removed": self.removed,
            "roll": list(self.roll),
            "crash_count": self.crash_count,
            "crash_track_length": game.board.crash_track_length,
            "moons": dict(self.moon_occupant),
            "planets": {pid: [{"seat": p.seat, "seq": p.seq, "kind": p.kind}
                              for p in self.placements if p.target == pid]
                        for pid in game.board.planets},
            "comet": [p.seat for p in self.placements if p.target == COMET],
            "galaxy": [p.seat for p in self.placements if p.target == GALAXY],
            "goals": self.goal_owners(),
            "ufo": {"position": self.ufo_position, "stack": list(self.ufo_stack),
                    "token": self.ufo_token or None,
                    "ability_used": self.ufo_ability_used} if game.has("ufo") else None,
            "exploration": {str(space): tid for space, tid in sorted(
                self.explore_on_board.items())} if game.has("exploration") else None,
            "legal_actions": [str(a) for a in self.legal_actions()]
            if not self.is_chance_node() else [],
            "winners": self.winners(),
            "end_reason": self.end_reason or None,
        }

    def __str__(self) -> str:
        names = self.game.config.players
        aboard = ", ".join(f"{names[s]}:{k}" for s, k in self.rocket) or "-"
        return (f"[{self.phase.value}] space {self.space} dice {self.available}/{self.removed} "
                f"crashes {self.crash_count} rocket {aboard} | {self.expecting()}")



def _dispatch_draw(state: State, action: Draw) -> None:
    {
        Phase.DEAL_MISSIONS: state._apply_deal,
        Phase.REVEAL_EXPLORATION: state._apply_reveal_exploration,
        Phase.REVEAL_EXPEDITION: state._apply_reveal_expedition,
    }[state.phase](action)


_HANDLERS: dict[tuple[Phase, type], Any] = {
    (Phase.DEAL_MISSIONS, Draw): _dispatch_draw,
    (Phase.REVEAL_EXPLORATION, Draw): _dispatch_draw,
    (Phase.REVEAL_EXPEDITION, Draw): _dispatch_draw,
    (Phase.DISCARD_MISSION, Discard): State._apply_discard,
    (Phase.PLACE, Place): State._apply_place,
    (Phase.ROLL, Roll): State._apply_roll,
    (Phase.CHOOSE, Move): State._apply_move,
    (Phase.CHOOSE, Reroll): State._apply_reroll,
    (Phase.CHOOSE, Crash): State._apply_crash,
    (Phase.LANDING, Land): State._apply_land,
    (Phase.LANDING, Stay): State._apply_stay,
    (Phase.PARACHUTE, Land): State._apply_land,
    (Phase.PARACHUTE, Stay): State._apply_stay,
    (Phase.DEEP_SPACE, Land): State._apply_land,
}
