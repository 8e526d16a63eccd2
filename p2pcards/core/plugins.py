"""Game plugins: the hook specification, the registry and the plugin manager.

A plugin is any module with a ``p2pcards_register_games(registry)`` hook implementation,
declared under the entry-point group ``p2pcards``::

    [project.entry-points.p2pcards]
    mygame = "p2pcards_mygame"

The built-in games are found exactly this way; the core imports none of them.  README,
"Writing a game plugin", walks through a whole plugin.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field

import pluggy

from p2pcards.core.spec import GameSpec

__all__ = [
    "hookspec",
    "hookimpl",
    "GameRegistry",
    "PluginProblem",
    "get_plugin_manager",
    "load_games",
    "ENTRY_POINT_GROUP",
]

ENTRY_POINT_GROUP = "p2pcards"
hookspec = pluggy.HookspecMarker("p2pcards")
hookimpl = pluggy.HookimplMarker("p2pcards")


class _Hooks:
    """Hook specifications of p2pcards."""

    @hookspec
    def p2pcards_register_games(self, registry: GameRegistry) -> None:
        """Register the plugin's games: call ``registry.add_game(spec)`` for each."""


@dataclass(frozen=True, slots=True)
class PluginProblem:
    """A plugin that could not be loaded or failed to register, and why."""

    plugin: str
    error: str


@dataclass
class GameRegistry:
    """Games by name, filled by ``p2pcards_register_games`` hooks."""

    games: dict[str, GameSpec] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    problems: list[PluginProblem] = field(default_factory=list)
    _current: str = "?"

    def add_game(self, spec: GameSpec) -> None:
        """Register ``spec``; a name already taken by another plugin is an error."""
        if not isinstance(spec, GameSpec):
            raise TypeError(f"add_game expects a GameSpec, got {type(spec).__name__}")
        if spec.name in self.games:
            raise ValueError(f"game {spec.name!r} is already registered by {self.owners[spec.name]}")
        self.games[spec.name] = spec
        self.owners[spec.name] = self._current

    def get(self, name: str) -> GameSpec:
        """The game called ``name``; KeyError with the installed names otherwise."""
        try:
            return self.games[name]
        except KeyError:
            names = ", ".join(sorted(self.games)) or "none"
            raise KeyError(f"unknown game {name!r} (installed: {names})") from None


def get_plugin_manager(
    entry_points: bool = True, problems: list[PluginProblem] | None = None
) -> pluggy.PluginManager:
    """A plugin manager with every ``p2pcards`` entry point loaded, one by one.

    A plugin that fails to import or declares an unknown ``p2pcards_*`` hook is reported in
    ``problems`` and skipped, so one broken plugin cannot take the other games down.
    """
    pm = pluggy.PluginManager("p2pcards")
    pm.add_hookspecs(_Hooks)
    if not entry_points:
        return pm
    sink = problems if problems is not None else []
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            plugin = ep.load()
        except Exception as exc:  # noqa: BLE001 -- any import failure is the plugin's
            sink.append(PluginProblem(ep.name, f"cannot load {ep.value}: {exc!r}"))
            continue
        if pm.is_registered(plugin) or pm.has_plugin(ep.name):
            continue
        try:
            pm.register(plugin, name=ep.name)
            pm.check_pending()
            if not pm.get_hookcallers(plugin):
                raise ValueError("it implements no p2pcards hook (p2pcards_register_games)")
        except Exception as exc:  # noqa: BLE001
            if pm.is_registered(plugin):
                pm.unregister(plugin)
            sink.append(PluginProblem(ep.name, f"invalid plugin: {exc}"))
    return pm


def load_games(pm: pluggy.PluginManager | None = None) -> GameRegistry:
    """Ask every plugin to register its games, each in its own ``try``."""
    registry = GameRegistry()
    if pm is None:
        pm = get_plugin_manager(problems=registry.problems)
    plugins = pm.get_plugins()
    for plugin in plugins:
        name = pm.get_name(plugin) or repr(plugin)
        others = [p for p in plugins if p is not plugin]
        caller = pm.subset_hook_caller("p2pcards_register_games", remove_plugins=others)
        registry._current = name
        before = set(registry.games)
        try:
            caller(registry=registry)
        except Exception as exc:  # noqa: BLE001
            for game in set(registry.games) - before:  # no half-registered plugin
                del registry.games[game], registry.owners[game]
            registry.problems.append(PluginProblem(name, f"register_games failed: {exc!r}"))
    registry._current = "?"
    return registry
