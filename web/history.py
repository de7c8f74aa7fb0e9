"""Past games and simple statistics: games played, average score, crash rate, best astronauts.

Statistics come from replaying each finished game's record (the record is the truth), with the
named events saying what each action did. A finished game never changes unless an undo reopens it,
so each summary is cached by (game id, finish time).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

from companion.events import events_between
from companion.games.mlem import Game, GameConfig, RulesError, State, parse_action
from companion.games.mlem.record import write_record
from companion.store import Store, StoredGame


def replay(stored: StoredGame) -> State:
    """The state a stored game's record gives.

    :raises RulesError: the record no longer replays (a board file changed under it).
    """
    state = Game(GameConfig.from_json(stored.setup)).new_initial_state()
    for text in stored.actions:
        state.apply_action(text)
    return state


def record_text(stored: StoredGame) -> str:
    """The versioned game record (record.write_record), ready to download."""
    return write_record(replay(stored))


class History:
    """Summaries of finished games, computed once each."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._cache: dict[tuple[int, float | None], dict[str, Any]] = {}

    def summary(self, stored: StoredGame) -> dict[str, Any]:
        key = (stored.id, stored.finished)
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            cached = self._summarise(stored)
            with self._lock:
                self._cache[key] = cached
        return cached

    @staticmethod
    def _summarise(stored: StoredGame) -> dict[str, Any]:
        result = stored.result or {}
        landings: dict[str, list[int]] = defaultdict(list)
        crashes = expeditions = 0
        ok = True
        try:
            state = Game(GameConfig.from_json(stored.setup)).new_initial_state()
            for text in stored.actions:
                action = parse_action(text)
                before = state.clone()
                state.apply_action(action)
                for event in events_between(before, action, state):
                    if event.name == "landed":
                        landings[event.data["kind"]].append(int(event.data["points"]))
                    elif event.name == "crashed":
                        crashes += 1
                    elif event.name == "expedition_over":
                        expeditions += 1
        except RulesError:
            ok = False
        return {
            "id": stored.id,
            "created": stored.created,
            "finished": stored.finished,
            "players": list(stored.setup.get("players", [])),
            "variants": list(stored.setup.get("variants", [])),
            "board": stored.setup.get("board", ""),
            "scores": [int(s.get("total", 0)) for s in result.get("scores", [])],
            "breakdown": result.get("scores", []),
            "winners": list(result.get("winners", [])),
            "end_reason": result.get("end_reason"),
            "actions": len(stored.actions),
            "replayable": ok,
            "_crashes": crashes,
            "_expeditions": expeditions,
            "_landings": {k: v for k, v in landings.items()},
        }

    def report(self, limit: int) -> dict[str, Any]:
        """Finished games (newest first) and the statistics over them."""
        games = [self.summary(g) for g in self.store.finished_games(limit)]
        scores = [s for g in games for s in g["scores"]]
        crashes = sum(g["_crashes"] for g in games)
        expeditions = sum(g["_expeditions"] for g in games)
        kinds: dict[str, list[int]] = defaultdict(list)
        for g in games:
            for kind, points in g["_landings"].items():
                kinds[kind].extend(points)
        rows = [(round(sum(points) / len(points), 2), len(points), kind)
                for kind, points in kinds.items()]
        rows.sort(key=lambda row: (-row[0], -row[1], row[2]))
        best = [{"kind": kind, "landings": n, "average_points": average}
                for average, n, kind in rows]
        return {
            "games": [{k: v for k, v in g.items() if not k.startswith("_")} for g in games],
            "stats": {
                "games_played": len(games),
                "average_score": round(sum(scores) / len(scores), 2) if scores else None,
                "crash_rate": round(crashes / expeditions, 3) if expeditions else None,
                "crashes": crashes,
                "expeditions": expeditions,
                "best_astronauts": best,
            },
        }
