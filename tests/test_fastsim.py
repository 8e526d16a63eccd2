"""The batch simulator (p2pcards/players/fastsim.py and the plugins' fastsim modules) against
the plugins' own rules, on arranged positions and on random ones."""

from __future__ import annotations

import io
import json
from collections import Counter

import numpy as np
import pytest

from p2pcards.core import PORTUGUESE_40, Decision, Deck, game_points, load_games
from p2pcards.players.fastsim import Outcome, Positions, TrumpDuties, cards_of_mask, playout, policy_cards
from p2pcards.players.simulators import cross_check, simulator_for
from p2pcards.tools.bench_rules import format_sim_report, print_sim_bench, run_sim_bench
from p2pcards_bisca import SPEC as BISCA
from p2pcards_bisca.fastsim import SIMULATOR as BISCA_SIM
from p2pcards_copas import SPEC as COPAS
from p2pcards_copas.fastsim import SIMULATOR as COPAS_SIM
from p2pcards_sobe_e_desce import SPEC as SOBE
from p2pcards_sobe_e_desce.fastsim import SIMULATOR as SOBE_SIM
from p2pcards_sueca import SPEC as SUECA
from p2pcards_sueca import SuecaDeal
from p2pcards_sueca.fastsim import SIMULATOR as SUECA_SIM
from p2pcards_sueca.fastsim import SuecaSimulator, deal_game_points
from tests.helpers import arranged, legal_cards, play_card, run_until_decision

# seat 1 gets positions 0-9, seat 2 10-19, seat 3 20-29, the dealer (seat 0) 30-39; trumps D
HANDS = {
    1: ["AS", "7S", "2S", "KH", "JH", "QH", "6H", "5H", "4H", "3H"],
    2: ["KS", "JS", "QS", "6S", "5S", "4S", "3S", "2H", "AD", "7D"],
    3: ["AC", "7C", "KC", "JC", "QC", "6C", "5C", "4C", "3C", "2C"],
    0: ["AH", "7H", "KD", "JD", "QD", "6D", "5D", "4D", "3D", "2D"],
}


def arranged_deal() -> SuecaDeal:
    cards = arranged(PORTUGUESE_40, [c for s in (1, 2, 3, 0) for c in HANDS[s]])
    deal = SuecaDeal(0, SUECA.resolve_options(), Deck.full(4, cards))
    run_until_decision(deal)
    return deal


def legal_of(pos: Positions, row: int = 0) -> list[str]:
    return sorted(cards_of_mask(SUECA_SIM.table, int(SUECA_SIM.legal(pos)[row])))


def test_simulators_are_found_through_the_plugins():
    games = load_games().games
    assert simulator_for(games["sueca"]) is SUECA_SIM
    assert simulator_for(games["bisca"]) is BISCA_SIM
    assert simulator_for(games["copas"]) is COPAS_SIM
    assert simulator_for(games["sobe-e-desce"]) is SOBE_SIM


def test_arranged_position_legal_sets_match_the_plugin():
    deal = arranged_deal()
    pos = SUECA_SIM.from_states([deal])
    assert int(pos.trump[0]) == SUECA_SIM.table.suit_index("D") and int(pos.leader[0]) == 1
    assert legal_of(pos) == legal_cards(deal, 1) == sorted(HANDS[1])  # leading: anything
    play_card(deal, 1, "AS")
    pos = SUECA_SIM.from_states([deal])
    assert legal_of(pos) == legal_cards(deal, 2) == sorted(["KS", "JS", "QS", "6S", "5S", "4S", "3S"])
    play_card(deal, 2, "3S")
    pos = SUECA_SIM.from_states([deal])
    # seat 3 has no spade: anything, no obligation to trump
    assert legal_of(pos) == legal_cards(deal, 3) == sorted(HANDS[3])


def test_a_trump_wins_over_the_ace_led_and_points_go_to_its_team():
    deal = arranged_deal()
    for seat, card in ((1, "AS"), (2, "3S"), (3, "2C")):
        play_card(deal, seat, card)
    pos = SUECA_SIM.from_states([deal])
    two_d = SUECA_SIM.table.ids["2D"]
    choices = np.full((1, 40), -1, dtype=np.int64)
    choices[0, 0] = two_d  # the dealer trumps with its smallest trump
    out = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, choices=choices[:, :37], record=True)
    assert out.winners is not None and int(out.winners[0, 0]) == 0  # seat 0 took the trick
    assert out.illegal is not None and bool(out.illegal[0])  # the padding after one card is no play
    # the same card through the plugin
    play_card(deal, 0, "2D")
    assert deal.tricks[-1].winner == 0 and deal.taken_points(0) == 11


def test_playout_of_positions_leaves_them_unchanged_and_is_reproducible():
    rng = np.random.default_rng(5)
    pos = SUECA_SIM.new_deals(500, rng, dealer=np.arange(500) % 4)
    before = pos.copy()
    a = SUECA_SIM.playout(pos, np.random.default_rng(9))
    b = SUECA_SIM.playout(pos, np.random.default_rng(9))
    assert (a == b).all()
    assert all((x == y).all() for x, y in zip(vars(pos).values(), vars(before).values()))
    assert (a.sum(axis=1) == 120).all()
    c = SUECA_SIM.playout(pos, np.random.default_rng(10))
    assert (a != c).any()


def test_random_playout_of_deals_at_different_points():
    deals = []
    for k in range(12):  # 0..11 cards already played
        deal = arranged_deal()
        for _ in range(k):
            seat = run_until_decision(deal).seats[0]  # type: ignore[union-attr]
            deal.apply(seat, deal.legal(seat)[0])
            run_until_decision(deal)
        deals.append(deal)
    pos = SUECA_SIM.from_states(deals)
    assert sorted((pos.trick >= 0).sum(axis=1).tolist()) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    out = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=np.random.default_rng(1), record=True)
    assert (out.points.sum(axis=1) == 120).all() and (out.tricks.sum(axis=1) == 10).all()
    assert out.plays is not None and ((out.plays >= 0).sum(axis=1) == 40 - np.arange(12)).all()
    with pytest.raises(ValueError, match="rows"):
        Positions(pos.hands, pos.trump[:3], pos.leader, pos.trick, pos.points, pos.tricks)


def test_whole_deals_total_120_points_and_10_tricks_and_score_like_the_core():
    out = SUECA_SIM.play_deals(3000, np.random.default_rng(2), dealer=np.arange(3000) % 4, record=True)
    assert (out.points.sum(axis=1) == 120).all() and (out.tricks.sum(axis=1) == 10).all()
    assert out.plays is not None and (np.sort(out.plays, axis=1) == np.arange(40)).all()  # each card once
    for all_points in (2, 4):
        gp = deal_game_points(out, all_points)
        want = [
            [game_points(int(p), int(t) == 10, 120, all_points) for p, t in zip(pts, trs)]
            for pts, trs in zip(out.points, out.tricks)
        ]
        assert gp.tolist() == want
    capote = Outcome(np.array([[120, 0]]), np.array([[10, 0]]))
    assert deal_game_points(capote).tolist() == [[4, 0]]


def test_random_players_choose_uniformly_among_the_legal_cards():
    deal = arranged_deal()
    play_card(deal, 1, "AS")
    pos = SUECA_SIM.from_states([deal] * 1)
    many = Positions.concat([pos] * 14_000)
    out = playout(SUECA_SIM.table, many, SUECA_SIM.team_of, rng=np.random.default_rng(3), record=True)
    assert out.plays is not None
    counts = Counter(SUECA_SIM.table.deck[int(c)] for c in out.plays[:, 0])
    assert set(counts) == {"KS", "JS", "QS", "6S", "5S", "4S", "3S"}
    for n in counts.values():  # 2,000 expected each; 5 standard deviations is about 190
        assert 1800 < n < 2200


def test_cross_check_sueca_on_20000_random_positions():
    report = cross_check(SUECA, SUECA_SIM, 20_000, seed=11)
    assert report["positions"] == 20_000 and report["deals"] == 500
    assert report["differ"] == {"legal": 0, "illegal_play": 0, "trick_winners": 0, "points": 0, "tricks": 0}
    assert report["replayed_deals"] == 200 and report["replays_differ"] == 0 and report["ok"]


def test_cross_check_bisca_on_random_positions_of_every_hand_size():
    report = cross_check(BISCA, BISCA_SIM, 8_000, seed=12)
    assert report["positions"] == 8_000 and report["ok"], report
    # the simulator's own deals: hands of the chosen size, the rest in the stock
    pos = BISCA_SIM.new_deals(200, np.random.default_rng(1), options={"hand": 9})
    assert (np.bitwise_count(pos.hands) == 9).all() and ((pos.stock >= 0).sum(axis=1) == 22).all()
    assert BISCA_SIM.for_options({"swap2": "off"}) is BISCA_SIM
    swapping = BISCA_SIM.for_options({"swap2": "on"})
    assert swapping.table.swap_two and not BISCA_SIM.table.swap_two
    assert BISCA_SIM.for_options({"swap2": "on"}) is swapping and swapping.for_options({"swap2": "on"}) is swapping


class _SwapAlways(type(BISCA_SIM)):  # type: ignore[misc]
    """Bisca's simulator cross-checked at swap2=on only (``swaps``: whether its players swap)."""

    variants = {"hand": (3, 5), "swap2": ("on",)}

    def __init__(self, swaps: bool) -> None:
        super().__init__(swap_two=swaps)

    def for_options(self, options):
        return self


@pytest.mark.parametrize("swaps", [True, False], ids=["swapping", "forgets-the-swap"])
def test_cross_check_bisca_with_the_swap_of_the_two_of_trumps(swaps):
    """With swap2=on the plugin's players swap the 2 of trumps whenever they may, as the
    simulator's do; a simulator whose players never swap is caught."""
    report = cross_check(BISCA, _SwapAlways(swaps), 6_000, seed=21, replays=100)
    if swaps:
        assert report["ok"], report
    else:
        assert not report["ok"] and report["differ"]["points"] + report["replays_differ"] > 0, report


def test_a_first_card_given_is_played_without_the_swap():
    """The search weighs each card as played without swapping (the swap is a candidate of
    its own): before a first card it gives, the simulator's player does not swap; choosing
    itself, it swaps, and never plays the 2 of trumps while the stock lasts."""
    sim = BISCA_SIM.for_options({"swap2": "on"})
    table = sim.table
    ids = table.ids
    pos = Positions(
        np.array([[table.mask(["2C", "KH", "5S"]), table.mask(["AH", "3D", "4D"])]], dtype=np.uint64),
        np.array([table.suit_index("C")]), np.array([0]), np.array([[-1, -1]]),
        np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2), dtype=np.int64),
        np.array([[ids[c] for c in PORTUGUESE_40 if c not in {"2C", "KH", "5S", "AH", "3D", "4D", "7C"}]
                  + [ids["7C"]]]),
    )
    rng = np.random.default_rng(5)
    given = playout(table, pos, sim.team_of, rng=rng, record=True, first=np.array([ids["2C"]]))
    assert given.plays is not None and given.plays[0, 0] == ids["2C"]
    assert given.plays[0].tolist().count(ids["2C"]) == 1 and ids["7C"] not in given.plays[0, :34].tolist()
    for seed in range(20):
        chosen = playout(table, pos, sim.team_of, rng=np.random.default_rng(seed), record=True)
        assert chosen.plays is not None
        stock_plays = chosen.plays[0, : 2 * 17]  # while the stock lasts: 34 cards to draw, 2 a trick
        assert ids["2C"] not in stock_plays.tolist()
        assert ids["7C"] in chosen.plays[0].tolist()


class _WrongTrumpCard(SuecaSimulator):
    """A simulator that takes trumps from the dealer's first card whatever the option."""

    def deal_decks(self, decks, dealer, options):  # type: ignore[no-untyped-def]
        pos = super().deal_decks(decks, dealer, options)
        pos.trump = self.table.suit[decks[:, 30]]
        return pos


class _MustTrump(SuecaSimulator):
    """A simulator whose players must trump when void in the suit led (not Sueca's rule)."""

    def legal(self, pos):  # type: ignore[no-untyped-def]
        legal = super().legal(pos)
        rows = np.arange(pos.size)
        seat = (pos.leader + (pos.trick >= 0).sum(axis=1)) % 4
        hand = pos.hands[rows, seat]
        trumps = hand & self.table.suit_mask[pos.trump]
        void = (legal == hand) & (pos.trick[:, 0] >= 0) & (trumps != 0)
        return np.where(void, trumps, legal)


def test_cross_check_finds_a_simulator_that_breaks_the_rules():
    # a wrong rule of play shows at the positions taken from the plugin's deals
    report = cross_check(SUECA, _MustTrump(), 2_000, seed=4, replays=0)
    assert not report["ok"] and report["differ"]["legal"] > 0 and report["replays_differ"] == 0
    # a wrong deal shows when the simulator's own deals are replayed in the plugin
    report = cross_check(SUECA, _WrongTrumpCard(), 400, seed=4, replays=100)
    assert not report["ok"] and sum(report["differ"].values()) == 0 and report["replays_differ"] > 0


def test_from_states_refuses_a_deal_not_waiting_for_a_card():
    cards = arranged(PORTUGUESE_40, [c for s in (1, 2, 3, 0) for c in HANDS[s]])
    deal = SuecaDeal(0, SUECA.resolve_options(), Deck.full(4, cards))  # nothing dealt yet
    with pytest.raises(ValueError, match="not waiting for a card"):
        SUECA_SIM.from_states([deal])


def test_playout_arguments_are_checked():
    pos = SUECA_SIM.new_deals(3, np.random.default_rng(1))
    with pytest.raises(ValueError, match="either rng"):
        playout(SUECA_SIM.table, pos, SUECA_SIM.team_of)
    with pytest.raises(ValueError, match="steps"):
        playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, choices=np.zeros((3, 5), dtype=np.int64))
    with pytest.raises(ValueError, match="team"):
        playout(SUECA_SIM.table, pos, (0, 1), rng=np.random.default_rng(1))


def test_bench_sim_reports_figures_ratios_and_the_cross_check():
    games = load_games().games
    report = run_sim_bench(games, 0.05, check_positions=400)
    assert set(report["games"]) == {"sueca", "bisca", "copas", "sobe-e-desce"}
    for g in report["games"].values():
        assert g["deals_per_second"] > 0 and g["plugin"]["deals_per_second"] > 0
        assert g["ratio_to_plugin"] > 0 and g["ratio_to_baseline"] > 0
        assert g["cross_check"]["positions"] >= 400 and g["cross_check"]["ok"]  # whole deals: a few more
    assert report["aim"]["game"] == "sueca" and isinstance(report["aim"]["met"], bool)
    assert report["cross_check_ok"] is True
    text = format_sim_report(report)
    assert "x plugin" in text and "aim: sueca simulator" in text and "400 positions" in text and "0 differed" in text
    out = io.StringIO()
    assert print_sim_bench(out, games, 0.05, json=True) == 0
    assert "cross_check_ok" not in json.loads(out.getvalue())
    with pytest.raises(ValueError, match="positive"):
        run_sim_bench(games, 0)
    with pytest.raises(ValueError, match="0 or more"):
        run_sim_bench(games, 0.05, check_positions=-1)


def greedy_first_card(pos: Positions) -> str:
    """The card the greedy player to play in ``pos`` (one row) plays."""
    out = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=np.random.default_rng(0), policy="greedy", record=True)
    assert out.plays is not None
    return SUECA_SIM.table.deck[int(out.plays[0, 0])]


def test_greedy_players_follow_the_table_rules():
    deal = arranged_deal()
    # the ace of spades is the best spade, but seat 0 has none and holds trumps: the cheapest card
    assert greedy_first_card(SUECA_SIM.from_states([deal])) == "2S"
    play_card(deal, 1, "AS")
    # an opponent (seat 1) wins and no spade beats the ace: the cheapest spade
    assert greedy_first_card(SUECA_SIM.from_states([deal])) == "3S"
    play_card(deal, 2, "3S")
    # the partner wins: the most points, no spade to follow with
    assert greedy_first_card(SUECA_SIM.from_states([deal])) == "AC"
    play_card(deal, 3, "AC")
    # 22 points on the table, an opponent winning, last to play: a trump takes them
    assert greedy_first_card(SUECA_SIM.from_states([deal])).endswith("D")
    # leading a card nobody can beat when no opponent can trump it
    table = SUECA_SIM.table
    hands = [["AC", "2H", "3H"], ["KC", "4H", "5H"], ["7C", "6H", "QH"], ["JC", "JH", "KH"]]

    def lead(hands: list[list[str]]) -> str:
        pos = Positions(
            np.array([[table.mask(h) for h in hands]], dtype=np.uint64), np.array([table.suit_index("D")]),
            np.array([0]), np.full((1, 4), -1), np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2), dtype=np.int64),
        )
        return greedy_first_card(pos)

    assert lead(hands) == "AC"
    hands[1] = ["2D", "4H", "5H"]  # seat 1, an opponent, has no club and a trump
    assert lead(hands) == "2H"
    hands[1], hands[2] = ["KC", "4H", "5H"], ["2D", "6H", "QH"]  # the partner's trump is no danger
    assert lead(hands) == "AC"


def test_greedy_players_beat_random_players():
    rng = np.random.default_rng(4)
    pos = SUECA_SIM.new_deals(3000, rng, dealer=np.arange(3000) % 4)
    greedy_team0 = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=rng, policy=("greedy", "random") * 2).points
    greedy_team1 = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=rng, policy=("random", "greedy") * 2).points
    assert greedy_team0[:, 0].mean() > 68 and greedy_team1[:, 1].mean() > 68  # about 74 of 120
    assert (greedy_team0.sum(axis=1) == 120).all()
    bisca = BISCA_SIM.new_deals(3000, rng, dealer=np.arange(3000) % 2)
    for seat in (0, 1):
        policy = ["random", "random"]
        policy[seat] = "greedy"
        assert playout(BISCA_SIM.table, bisca, BISCA_SIM.team_of, rng=rng, policy=policy).points[:, seat].mean() > 75
    # greedy players alone are the same from the same seed; epsilon mixes in random cards
    a = SUECA_SIM.playout(pos, np.random.default_rng(1), "greedy", 0.2)
    assert (a == SUECA_SIM.playout(pos, np.random.default_rng(1), "greedy", 0.2)).all()
    assert (a != SUECA_SIM.playout(pos, np.random.default_rng(2), "greedy", 0.2)).any()
    with pytest.raises(ValueError, match="unknown policy"):
        SUECA_SIM.playout(pos, rng, "clever")
    with pytest.raises(ValueError, match="policy for each"):
        playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=rng, policy=("greedy", "random"))
    with pytest.raises(ValueError, match="epsilon"):
        SUECA_SIM.playout(pos, rng, "greedy", 1.5)


def test_first_cards_are_played_before_the_players_take_over():
    deal = arranged_deal()
    pos = SUECA_SIM.from_states([deal]).take(np.array([0, 0, 0]))
    assert pos.size == 3 and (pos.hands == pos.hands[0]).all()
    ids = SUECA_SIM.table.ids
    first = np.array([ids["AS"], -1, ids["3H"]])
    out = playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, rng=np.random.default_rng(1), policy="greedy",
                  first=first, record=True)
    assert out.plays is not None
    assert [SUECA_SIM.table.deck[int(c)] for c in out.plays[:, 0]] == ["AS", "2S", "3H"]  # -1: the player's own
    with pytest.raises(ValueError, match="not legal"):
        SUECA_SIM.playout(pos, np.random.default_rng(1), first=np.array([ids["AC"], -1, -1]))  # seat 3's card
    with pytest.raises(ValueError, match="batch has 3"):
        SUECA_SIM.playout(pos, np.random.default_rng(1), first=np.array([ids["AS"]]))
    with pytest.raises(ValueError, match="not with choices"):
        playout(SUECA_SIM.table, pos, SUECA_SIM.team_of, choices=np.zeros((3, 40), dtype=np.int64), first=first)


def test_cross_check_copas_on_random_positions_of_both_hearts_rules_and_rank_orders():
    """Copas' extra rules (no heart led before one or the queen of spades is played, no
    point card on the first trick), its card points and both its rank orders agree with
    the plugin's."""
    report = cross_check(COPAS, COPAS_SIM, 20_000, seed=13)
    assert report["positions"] >= 20_000 and report["ok"], report
    standard = COPAS_SIM.for_options({"ranks": "standard"})
    assert standard is not COPAS_SIM and standard.ranks == "standard" and COPAS_SIM.for_options({}) is COPAS_SIM
    assert standard.for_options({"ranks": "portuguese"}) is COPAS_SIM
    assert standard.table.strength[standard.table.ids["QS"]] > standard.table.strength[standard.table.ids["JS"]]
    assert COPAS_SIM.table.strength[COPAS_SIM.table.ids["QS"]] < COPAS_SIM.table.strength[COPAS_SIM.table.ids["JS"]]
    pos = COPAS_SIM.new_deals(500, np.random.default_rng(2), dealer=np.arange(500) % 4, options={"hearts": "free"})
    assert pos.broken.all() and (pos.trick[:, 0] == COPAS_SIM.table.ids["2C"]).all()
    assert (np.bitwise_count(pos.hands).sum(axis=1) == 51).all()
    out = playout(COPAS_SIM.table, pos, COPAS_SIM.team_of, rng=np.random.default_rng(3))
    assert (out.points.sum(axis=1) == 26).all() and (out.tricks.sum(axis=1) == 13).all()
    # a simulator refuses the positions of the other rank order (the search then asks for_options)
    match = COPAS.new_match({**COPAS.resolve_options(), "ranks": "standard"}, 0)
    state = match.new_deal(list(COPAS.deck))
    while not (isinstance(state.step(), Decision) and state.step().kind == "play"):  # type: ignore[union-attr]
        step = state.step()
        if isinstance(step, Decision):
            for seat in state.undecided():
                state.apply(seat, tuple(state.legal(seat)[:3]))
        else:
            state.complete()
    assert standard.from_states([state]).size == 1
    with pytest.raises(ValueError, match="follows ranks=portuguese"):
        COPAS_SIM.from_states([state])


class _HeartsAnytime(type(COPAS_SIM)):  # type: ignore[misc]
    """A Copas simulator that lets hearts be led before they are broken."""

    def broken(self, state):  # type: ignore[no-untyped-def]
        return True


def test_cross_check_finds_a_copas_simulator_without_the_hearts_rule():
    report = cross_check(COPAS, _HeartsAnytime(), 4_000, seed=5, replays=0)
    assert not report["ok"] and report["differ"]["legal"] > 0


def test_copas_values_apply_the_moon_rule():
    points = np.array([[3, 10, 13, 0], [26, 0, 0, 0], [0, 0, 0, 26]])
    outcome = Outcome(points, np.ones((3, 4), dtype=np.int64))
    pos = COPAS_SIM.new_deals(3, np.random.default_rng(1))
    assert COPAS_SIM.values(outcome, pos, 0).tolist() == [-3, 0, -26]
    assert COPAS_SIM.values(outcome, pos, 3).tolist() == [0, -26, 0]


def test_ducking_players_take_fewer_points_than_random_players():
    rng = np.random.default_rng(6)
    pos = COPAS_SIM.new_deals(3000, rng, dealer=np.arange(3000) % 4)
    for seat in range(4):
        policy = ["random"] * 4
        policy[seat] = "duck"
        points = playout(COPAS_SIM.table, pos, COPAS_SIM.team_of, rng=rng, policy=policy).points
        assert points[:, seat].mean() < 0.75 * points.mean(axis=0)[[s for s in range(4) if s != seat]].mean()


def test_ducking_player_rules():
    """Following, the highest card that loses (points first); void, the queen of spades
    or the highest heart; leading, the weakest card."""
    table = COPAS_SIM.table
    ids = table.ids

    def card(hands: list[list[str]], trick: list[str], leader: int) -> str:
        row = [ids[c] for c in trick] + [-1] * (4 - len(trick))
        pos = Positions(
            np.array([[table.mask(h) for h in hands]], dtype=np.uint64), np.array([-1]), np.array([leader]),
            np.array([row]), np.zeros((1, 4), dtype=np.int64), np.ones((1, 4), dtype=np.int64),
            broken=np.array([True]),
        )
        out = playout(table, pos, COPAS_SIM.team_of, rng=np.random.default_rng(0), policy="duck", record=True)
        assert out.plays is not None
        return table.deck[int(out.plays[0, 0])]

    rest = [["2D"], ["3D"], ["4D"]]  # seat 0 plays after seat 3, the leader of the trick
    assert card([["AS", "QS", "9S", "2S"], *rest], ["KS"], 3) == "QS"  # the highest spade under the king
    assert card([["AS", "9S", "2S"], *rest], ["KS"], 3) == "9S"
    assert card([["AS", "KC"], *rest], ["2S"], 3) == "AS"  # must win: the highest
    assert card([["QS", "AH", "KC"], *rest], ["2D"], 3) == "QS"  # void: the queen of spades first
    assert card([["5H", "AH", "KC"], *rest], ["2D"], 3) == "AH"
    assert card([["9C", "3H", "4S"], *rest], [], 0) == "3H"  # leading (hearts broken): the weakest


def test_cross_check_sobe_e_desce_with_seats_that_sit_out():
    """Sobe e Desce's duties with trumps (lead the ace of trumps; unable to follow, trump
    over the trick's trumps) and play among the seats that went in agree with the plugin."""
    report = cross_check(SOBE, SOBE_SIM, 20_000, seed=14)
    assert report["ok"], report
    assert report["positions"] < 20 * report["deals"]  # some deals were played by three
    pos = SOBE_SIM.new_deals(2000, np.random.default_rng(3), dealer=np.arange(2000) % 4)
    out = playout(SOBE_SIM.table, pos, SOBE_SIM.team_of, rng=np.random.default_rng(4))
    assert (out.tricks.sum(axis=1) == 5).all()
    assert (out.tricks[~pos.active] == 0).all() and (~pos.active).any()


def test_sobe_e_desce_trump_duties():
    table = SOBE_SIM.table
    ids = table.ids

    def legal(hand: list[str], trick: list[str], trump: str = "D") -> list[str]:
        row = [ids[c] for c in trick] + [-1] * (4 - len(trick))
        pos = Positions(
            np.array([[table.mask(hand), table.mask(["2S"]), table.mask(["3S"]), table.mask(["4S"])]],
                     dtype=np.uint64),
            np.array([table.suit_index(trump)]), np.array([(4 - len(trick)) % 4]), np.array([row]),
            np.zeros((1, 4), dtype=np.int64), np.zeros((1, 4), dtype=np.int64),
        )
        return sorted(cards_of_mask(table, int(SOBE_SIM.legal(pos)[0])))

    assert legal(["AD", "KS", "2C"], []) == ["AD"]  # leading with the ace of trumps
    assert legal(["AS", "KS", "2C"], []) == ["2C", "AS", "KS"]
    assert legal(["KD", "2D", "3C"], ["5H"]) == ["2D", "KD"]  # void: a trump, any while none is down
    assert legal(["KD", "2D", "3C"], ["5H", "7D"]) == ["2D", "3C", "KD"]  # nothing over the 7: anything
    assert legal(["KD", "2D", "3C"], ["5H", "JD"]) == ["KD"]  # over the jack: the king only
    assert legal(["KH", "2D"], ["5H", "JD"]) == ["KH"]  # following comes first


def test_sobe_e_desce_values_score_tricks_as_the_game_does():
    pos = SOBE_SIM.new_deals(3, np.random.default_rng(1))
    pos.trump = np.array([SOBE_SIM.table.suit_index(s) for s in "SCC"])
    outcome = Outcome(np.zeros((3, 4), dtype=np.int64), np.array([[2, 3, 0, 0], [2, 3, 0, 0], [0, 5, 0, 0]]))
    pos.active = np.ones((3, 4), dtype=bool)
    assert SOBE_SIM.values(outcome, pos, 0).tolist() == [2, 4, -10]
    assert SOBE_SIM.values(outcome, pos, 1).tolist() == [3, 6, 10]
    pos.active[2, 0] = False  # a seat that sat out: its score does not move
    assert SOBE_SIM.values(outcome, pos, 0).tolist() == [2, 4, 0]


class _NoOvertrump(type(SOBE_SIM)):  # type: ignore[misc]
    """A Sobe e Desce simulator that forgets the duty to trump over the trick."""

    def __init__(self) -> None:
        super().__init__()
        self.table.duties = TrumpDuties(lead_ace=True, overtrump=False)


def test_cross_check_finds_a_sobe_e_desce_simulator_without_the_duty_to_overtrump():
    report = cross_check(SOBE, _NoOvertrump(), 4_000, seed=6, replays=0)
    assert not report["ok"] and report["differ"]["legal"] > 0


@pytest.mark.parametrize(("spec", "sim", "greedy_at_most"), [(BISCA, BISCA_SIM, 0.8), (SUECA, SUECA_SIM, 0.85)],
                         ids=["bisca", "sueca"])
def test_the_search_models_the_other_players_by_the_heuristic(spec, sim, greedy_at_most):
    """The search's model of the other players (the simulator's model_policy) picks the
    heuristic's own card at nearly every position of random deals (the rest: ties between
    sure cards, and the face-up trump card the heuristic counts as seen); the greedy player
    it replaced agreed far less often (Bisca 66 %, Sueca 78 %)."""
    import random

    from p2pcards.core.view import SeatView
    from p2pcards.players import make_player
    from p2pcards.players.fastsim import policy_cards

    assert sim.model_policy == f"{spec.name}-heuristic"
    if spec.seats == 2:
        assert sim.policies(1) == [sim.model_policy, "greedy"]
    else:  # the partner plays as the searching seat does, the other side as the heuristic
        assert sim.policies(0) == ["greedy", sim.model_policy, "greedy", sim.model_policy]
        assert sim.policies(3) == [sim.model_policy, "greedy", sim.model_policy, "greedy"]
    rng = random.Random(3)
    agree = {sim.model_policy: 0, "greedy": 0}
    total = 0
    for _ in range(60 if spec.seats == 2 else 25):
        options = {"hand": rng.choice(["3", "5", "9"])} if spec is BISCA else {}
        match = spec.new_match(spec.resolve_options(options), rng.randrange(spec.seats))
        cards = list(spec.deck)
        rng.shuffle(cards)
        deal = match.new_deal(cards)
        heuristic = make_player("heuristic", spec, random.Random(4))
        for step in deal.decisions():
            seat = step.seats[0]
            legal = deal.legal(seat)
            want = deal.deck.cards[heuristic.choose(SeatView(deal, seat), step)]
            pos = sim.from_states([deal])
            for policy in agree:
                got = sim.table.deck[int(policy_cards(sim.table, pos, sim.team_of, policy)[0])]
                agree[policy] += got == want
            total += 1
            deal.apply(seat, legal[rng.randrange(len(legal))])
    assert total >= 1000
    assert agree[sim.model_policy] / total > 0.95, agree
    assert agree["greedy"] / total < greedy_at_most, agree


def test_a_game_adds_its_own_policy_once():
    from p2pcards.players.fastsim import add_policy, policy_cards
    from p2pcards_bisca.fastsim import heuristic_cards

    add_policy("bisca-heuristic", heuristic_cards)  # the same rule again: nothing changes
    with pytest.raises(ValueError, match="exists already"):
        add_policy("bisca-heuristic", lambda run, legal: legal.astype(np.int64))
    pos = BISCA_SIM.new_deals(4, np.random.default_rng(1))
    with pytest.raises(ValueError, match="unknown policy 'nobody'.*bisca-heuristic"):
        playout(BISCA_SIM.table, pos, BISCA_SIM.team_of, rng=np.random.default_rng(1), policy="nobody")
    with pytest.raises(ValueError, match="random player"):
        policy_cards(BISCA_SIM.table, pos, BISCA_SIM.team_of, "random")
    mixed = playout(BISCA_SIM.table, pos, BISCA_SIM.team_of, rng=np.random.default_rng(1),
                    policy=["greedy", "bisca-heuristic"])
    assert (mixed.points.sum(axis=1) == 120).all()


@pytest.mark.parametrize(("spec", "sim"), [(BISCA, BISCA_SIM), (SUECA, SUECA_SIM)], ids=["bisca", "sueca"])
def test_each_seat_plays_its_own_rule_in_a_batch_of_mixed_players(spec, sim):
    """With a rule per seat, each rule reads only the deals whose player it is: the first
    card of every deal of a batch (deals at every point of a trick, every seat to play) is
    the card the rule of its player gives when it reads the whole batch."""
    import random

    rng = random.Random(8)
    deals = []
    for k in range(80):
        match = spec.new_match(spec.resolve_options(), rng.randrange(spec.seats))
        cards = list(spec.deck)
        rng.shuffle(cards)
        deal = match.new_deal(cards)
        for plays, step in enumerate(deal.decisions()):
            seat = step.seats[0]
            if plays == k % 17:
                break
            legal = deal.legal(seat)
            deal.apply(seat, legal[rng.randrange(len(legal))])
        deals.append(deal)
    pos = sim.from_states(deals)
    policies = sim.policies(0)
    assert len(set(policies)) == 2
    by_policy = {p: policy_cards(sim.table, pos, sim.team_of, p) for p in set(policies)}
    turn = (pos.leader + (pos.trick >= 0).sum(axis=1)) % spec.seats
    assert len({int(t) for t in turn}) == spec.seats
    want = np.array([by_policy[policies[int(t)]][row] for row, t in enumerate(turn)])
    out = playout(sim.table, pos, sim.team_of, rng=np.random.default_rng(0), policy=policies, record=True)
    assert out.plays is not None
    assert (out.plays[:, 0] == want).all()
    assert (want != by_policy[policies[0]]).any() and (want != by_policy[policies[1]]).any()
