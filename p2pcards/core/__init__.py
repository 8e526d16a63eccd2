"""The sans-IO trick-taking core: cards, decks, positions, tricks, scoring, the game
state machine contract, seat views and plugin hooks.  The computer players are in
:mod:`p2pcards.players`, on top of this package.

Nothing here imports trio, prompt_toolkit, zeroconf or does I/O (a test enforces it).
"""

from p2pcards.core.cards import (
    FRENCH_52,
    PORTUGUESE_40,
    PT_POINTS,
    PT_RANK_ORDER,
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    Suit,
    make_deck,
    parse_card,
    pretty,
    rank_of,
    strength_table,
    suit_of,
)
from p2pcards.core.deck import DISCARD, PLAYED, STOCK, Deck, DeckError
from p2pcards.core.game import (
    GO_IN,
    PASS,
    PLAY,
    SWAP,
    TRUMP,
    Choice,
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    IllegalChoice,
    Line,
    Locate,
    Match,
    Option,
    OptionError,
    Reveal,
    Step,
    Summary,
)
from p2pcards.core.plugins import (
    GameRegistry,
    PluginProblem,
    get_plugin_manager,
    hookimpl,
    hookspec,
    load_games,
)
from p2pcards.core.scoring import (
    bandeira_winner,
    game_points,
    next_dealer,
    running_totals,
)
from p2pcards.core.tricks import Trick, card_points, follow_suit, higher_trumps, trick_winner
from p2pcards.core.view import SeatView

__all__ = [
    "FRENCH_52", "PORTUGUESE_40", "PT_POINTS", "PT_RANK_ORDER", "RANKS", "SUIT_NAMES",
    "SUIT_SYMBOLS", "SUITS", "Card", "Suit", "make_deck", "parse_card", "pretty", "rank_of",
    "strength_table", "suit_of",
    "DISCARD", "PLAYED", "STOCK", "Deck", "DeckError",
    "GO_IN", "PASS", "PLAY", "SWAP", "TRUMP", "Choice", "Deal", "DealState", "Decision",
    "End", "GameSpec", "IllegalChoice", "Line", "Locate", "Match", "Option", "OptionError",
    "Reveal", "Step", "Summary",
    "GameRegistry", "PluginProblem", "get_plugin_manager", "hookimpl", "hookspec",
    "load_games",
    "bandeira_winner", "game_points", "next_dealer", "running_totals",
    "Trick", "card_points", "follow_suit", "higher_trumps", "trick_winner",
    "SeatView",
]
