"""Words on the screen, in English and Portuguese (``--lang en|pt``; default from the locale).

Every string the terminal table shows comes from :data:`STRINGS` through a :class:`Text`;
placeholders are ``str.format`` fields.  The two tables must have the same keys (a test
checks it).  Card ranks and suit symbols are the same in both languages (``7♥``, ``A♠``).
"""

from __future__ import annotations

import locale
import os
from collections.abc import Mapping

__all__ = ["LANGS", "STRINGS", "Text", "default_lang"]

LANGS = ("en", "pt")

EN: dict[str, str] = {
    # table header and seats
    "deal": "deal {n}",
    "trump": "Trump",
    "trump_none": "Trump: not chosen yet",
    "trump_card_held": "{card} with {name}",
    "hearts_broken": "hearts broken",
    "tricks_double": "tricks count 2",
    "trump_card_stock": "{card} under the stock",
    "stock": "stock {n}",
    "you": "You",
    "you_marker": "you",
    "person": "person",
    "bot": "bot {level}",
    "dummy": "dummy (voted out)",
    "you_dummy": "you (voted out: watching)",
    "runs_here": "runs here",
    "runs_on": "runs on {fp}",
    "cards_left": "{n} cards",
    "one_card_left": "1 card",
    "tricks_won": "tricks {n}",
    "dealer_mark": "dealer",
    "sits_out": "sits out",
    "plays": "plays",
    "score_short": "score {n}",
    "taken_short": "{n} pts",
    # status line
    "connecting": "setting up the table…",
    "committing": "shuffling… committing {k}/{n}",
    "shuffling": "shuffling… {k}/{n}",
    "locking": "locking the deck… {k}/{n}",
    "dealing": "dealing…",
    "waiting_for": "waiting for {name}",
    "your_turn": "your turn",
    "your_turn_next": "your turn next…",
    "auditing": "auditing the deal…",
    "watching": "you were voted out (silent past the timeout): your seat is a dummy; you are watching",
    "table_over": "the table is over",
    "stopped": "stopped: {reason}",
    "speed": "pace {s:g} s",
    # prompts under the table
    "prompt_play": "←/→ choose · Enter or Space plays · 1-9 plays that card · click a card",
    "prompt_swap": "x or click: swap your {two} for the trump card {card}",
    "prompt_wait": "l last trick · s scores · ? help · q leave",
    "not_allowed": "{card} is not allowed now (follow the rules of the trick)",
    "pass_title": "Pass three cards",
    "pass_to": "Pass 3 cards {direction} to {name}: {k}/3 marked",
    "pass_keys": "Space, a digit or a click marks a card · Enter passes",
    "pass_need": "mark exactly 3 cards first",
    "dir_left": "to the left",
    "dir_right": "to the right",
    "dir_across": "across",
    "go_in_title": "Going in",
    "go_in_text": "Mark the cards to exchange ({k} marked), then Enter to play",
    "go_in_must": "You must play this deal.",
    "go_in_may": "n sits this deal out.",
    "go_in_button": "Play",
    "sit_out_button": "Sit out",
    "trump_title": "Choose trumps",
    "trump_text": "You choose trumps: a suit, or turn the next card.",
    "trump_turn": "turn the next card",
    "trump_hearts_note": "everyone plays",
    "trump_clubs_note": "tricks count double",
    "trump_keys": "←/→ or 1-5 · Enter chooses",
    "suit_S": "spades",
    "suit_H": "hearts",
    "suit_D": "diamonds",
    "suit_C": "clubs",
    # score panel
    "scores": "Scores",
    "this_deal": "This deal",
    "match": "Match",
    "points": "points",
    "pts": "pts",
    "game_points": "game points",
    "tricks": "tricks",
    "to_target": "to {n}",
    "lowest_wins": "lowest wins",
    "to_zero": "down to 0",
    "us": "Us",
    "them": "Them",
    "side_points": "{name}: {pts} pts, {tricks} tricks",
    "history": "Deals",
    # last trick
    "last_trick": "Last trick",
    "no_trick_yet": "No trick has been played yet.",
    "won_by": "won by {name}",
    # deal summary
    "summary_title": "Deal {n} is over",
    "verified": "Deal verified: shuffle, keys and every play check out.",
    "renuncia": "Renúncia by {name}: {reason}",
    "fault": "Fault by {name}: {reason} — {name} loses the deal.",
    "fault_unknown": "Fault: {reason} — the deal is void.",
    "vote_out": "{name} was silent past the timeout and was voted out: {name} loses the deal and is a dummy "
                "from now on.",
    "void": "This deal is void and scores nothing.",
    "sum_team": "{name} — points {pts}, tricks {tricks}, game points +{gp}",
    "sum_copas": "{name}: took {taken} → {pts} points",
    "sum_moon": "{name} shot the moon!",
    "sum_sobe": "{name}: {what}, tricks {tricks} → {delta:+d}, score {score}",
    "sum_sobe_out": "sat out",
    "sum_sobe_in": "played",
    "totals": "Match: {totals}",
    "continue": "Enter or Space: next deal",
    "see_result": "Enter or Space: the result",
    # match end
    "final_title": "The match is over",
    "winner_team": "{name} win the bandeira!",
    "winner_player": "{name} wins the match!",
    "winner_you": "You win the match!",
    "winners_you": "You and your partner win!",
    "no_winner": "The table stops here (deals played: {n}); no winner yet.",
    "tally": "Final tally",
    "riscos": "riscos",
    "leave_key": "Enter or q: leave the table",
    # quit, help, errors
    "quit_title": "Leave the table?",
    "quit_text": "The transcript stays in\n{path}",
    "quit_keys": "y leaves · n or Esc stays",
    "help_title": "Keys",
    "help": (
        "←/→        move along your hand\n"
        "Enter/Space play the chosen card (marks a card when passing)\n"
        "1-9, 0     the card at that place (0 is the tenth)\n"
        "click      a card, a button, a choice\n"
        "x          Bisca: swap the 2 of trumps\n"
        "n          sit the deal out (Sobe e Desce)\n"
        "l          the last trick\n"
        "s          the scores\n"
        "+/-        computer players slower/faster\n"
        "?          this help\n"
        "q          leave the table (asks first); Ctrl-C leaves at once\n"
        "Esc        close a window"
    ),
    "too_small": "The terminal is too small: {cols}×{rows}; the table needs {need_cols}×{need_rows}.",
    "error_title": "The table stopped",
    # start screen
    "start_title": "p2pcards — card tables with no server",
    "start_play": "Play against the computer",
    "start_host": "Host a LAN table",
    "start_lan": "Tables on the LAN",
    "start_join": "Join by address",
    "start_quit": "Quit",
    "start_game": "Game",
    "start_level": "Computer players",
    "start_option": "{name}",
    "start_go": "Start",
    "start_back": "Back",
    "start_keys": "↑/↓ move · ←/→ change · Enter choose · Esc back · q quit",
    "start_address": "Address (HOST:PORT)",
    "start_bad_address": "expected HOST:PORT, e.g. 192.168.1.20:40123",
    "lan_placeholder": "LAN discovery is not installed yet: no live list. Use “Join by address”.",
    "lan_none": "No tables seen on the LAN yet (listening…).",
    "lan_entry": "{game} hosted by {host} at {address} — {free} free seat(s)",
    "start_remote": "Players on the LAN",
    "start_open": "Open the table",
    "start_saved": "Your tables (resume)",
    "saved_none": "No table of yours is saved here.",
    "saved_local": "against the computer",
    "saved_joined": "joined at {where}",
    "saved_hosted": "hosted on {where}",
    "saved_unfinished": "unfinished: Enter takes it up again",
    "saved_finished": "ended: played to its end",
    "saved_voted-out": "ended: you were voted out (and watched the rest)",
    "saved_abandoned": "ended: abandoned, no winner",
    "saved_unknown": "ended: the table went on without you; its result is unknown here",
    "saved_is_over": "That table has ended: there is nothing to take up. `p2pcards audit` checks its log.",
    "saved_no_person": "Nobody plays on screen at that table (only computer players of yours): "
                       "`p2pcards resume {prefix}` plays it on.",
    "saved_failed": "Could not take the table up again: {error}",
    # LAN tables
    "waiting_reconnect": "waiting for {name} (reconnecting)",
    "reconnecting": "{names} reconnecting",
    "offline": "disconnected",
    "lobby_title": "p2pcards — table on the LAN",
    "lobby_hosting": "You host {game}; you sit at seat {seat}.",
    "lobby_listening": "Players join from the start screen, or with: p2pcards join {address}",
    "lobby_announced": "Announced on the LAN as “{name}”.",
    "lobby_seats": "Seats taken: {taken} of {total}.",
    "lobby_fill": "Waiting for players…",
    "lobby_connecting": "Connecting to {address}…",
    "lobby_locating": "Looking for “{name}” on the LAN…",
    "lobby_seated": "Seated at seat {seat} of {game}, hosted by {host}.",
    "lobby_start": "Waiting for the table to start…",
    "lobby_failed": "Could not play: {reason}",
    "lobby_resumed": "Taking up table {table} of {game} again ({deals} deal(s) done).",
    "lobby_reconnecting": "Reconnecting to the other players…",
    "lobby_keys": " q or Esc: leave ",
    "lobby_keys_failed": " any key: back ",
}

PT: dict[str, str] = {
    "deal": "mão {n}",
    "trump": "Trunfo",
    "trump_none": "Trunfo: ainda por escolher",
    "trump_card_held": "{card} com {name}",
    "hearts_broken": "copas já saíram",
    "tricks_double": "vazas valem 2",
    "trump_card_stock": "{card} debaixo do baralho",
    "stock": "baralho {n}",
    "you": "Você",
    "you_marker": "você",
    "person": "pessoa",
    "bot": "bot {level}",
    "dummy": "morto (votado fora)",
    "you_dummy": "você (votado fora: a assistir)",
    "runs_here": "corre aqui",
    "runs_on": "corre em {fp}",
    "cards_left": "{n} cartas",
    "one_card_left": "1 carta",
    "tricks_won": "vazas {n}",
    "dealer_mark": "dá",
    "sits_out": "não joga",
    "plays": "joga",
    "score_short": "pontos {n}",
    "taken_short": "{n} pts",
    "connecting": "a preparar a mesa…",
    "committing": "a baralhar… compromissos {k}/{n}",
    "shuffling": "a baralhar… {k}/{n}",
    "locking": "a trancar o baralho… {k}/{n}",
    "dealing": "a dar cartas…",
    "waiting_for": "à espera de {name}",
    "your_turn": "é a sua vez",
    "your_turn_next": "a seguir é a sua vez…",
    "auditing": "a auditar a mão…",
    "watching": "foi votado fora (silêncio além do tempo): o seu lugar é um morto; está a assistir",
    "table_over": "a mesa terminou",
    "stopped": "parou: {reason}",
    "speed": "ritmo {s:g} s",
    "prompt_play": "←/→ escolhe · Enter ou Espaço joga · 1-9 joga essa carta · clique numa carta",
    "prompt_swap": "x ou clique: trocar o seu {two} pelo trunfo {card}",
    "prompt_wait": "l última vaza · s pontuação · ? ajuda · q sair",
    "not_allowed": "{card} não pode ser jogada agora (siga as regras da vaza)",
    "pass_title": "Passar três cartas",
    "pass_to": "Passe 3 cartas {direction} a {name}: {k}/3 marcadas",
    "pass_keys": "Espaço, um algarismo ou um clique marca uma carta · Enter passa",
    "pass_need": "marque exatamente 3 cartas primeiro",
    "dir_left": "para a esquerda",
    "dir_right": "para a direita",
    "dir_across": "para a frente",
    "go_in_title": "Entrar",
    "go_in_text": "Marque as cartas a trocar ({k} marcadas) e Enter para jogar",
    "go_in_must": "Tem de jogar esta mão.",
    "go_in_may": "n não joga esta mão.",
    "go_in_button": "Jogar",
    "sit_out_button": "Não jogar",
    "trump_title": "Escolher o trunfo",
    "trump_text": "Escolhe o trunfo: um naipe, ou voltar a carta seguinte.",
    "trump_turn": "voltar a carta seguinte",
    "trump_hearts_note": "todos jogam",
    "trump_clubs_note": "cada vaza conta a dobrar",
    "trump_keys": "←/→ ou 1-5 · Enter escolhe",
    "suit_S": "espadas",
    "suit_H": "copas",
    "suit_D": "ouros",
    "suit_C": "paus",
    "scores": "Pontuação",
    "this_deal": "Esta mão",
    "match": "Partida",
    "points": "pontos",
    "pts": "pts",
    "game_points": "jogos",
    "tricks": "vazas",
    "to_target": "até {n}",
    "lowest_wins": "ganha o mais baixo",
    "to_zero": "até 0",
    "us": "Nós",
    "them": "Eles",
    "side_points": "{name}: {pts} pts, {tricks} vazas",
    "history": "Mãos",
    "last_trick": "Última vaza",
    "no_trick_yet": "Ainda não se jogou nenhuma vaza.",
    "won_by": "ganha por {name}",
    "summary_title": "Fim da mão {n}",
    "verified": "Mão verificada: baralhar, chaves e todas as jogadas estão certas.",
    "renuncia": "Renúncia de {name}: {reason}",
    "fault": "Falta de {name}: {reason} — {name} perde a mão.",
    "fault_unknown": "Falta: {reason} — a mão é anulada.",
    "vote_out": "{name} esteve em silêncio além do tempo e foi votado fora: {name} perde a mão e passa a ser um "
                "morto.",
    "void": "Esta mão foi anulada e não conta.",
    "sum_team": "{name} — pontos {pts}, vazas {tricks}, jogos +{gp}",
    "sum_copas": "{name}: apanhou {taken} → {pts} pontos",
    "sum_moon": "{name} apanhou tudo!",
    "sum_sobe": "{name}: {what}, vazas {tricks} → {delta:+d}, pontos {score}",
    "sum_sobe_out": "não jogou",
    "sum_sobe_in": "jogou",
    "totals": "Partida: {totals}",
    "continue": "Enter ou Espaço: mão seguinte",
    "see_result": "Enter ou Espaço: o resultado",
    "final_title": "A partida terminou",
    "winner_team": "{name} ganham a bandeira!",
    "winner_player": "{name} ganha a partida!",
    "winner_you": "Ganhou a partida!",
    "winners_you": "Você e o seu parceiro ganham!",
    "no_winner": "A mesa acaba aqui (mãos jogadas: {n}); ainda sem vencedor.",
    "tally": "Contas finais",
    "riscos": "riscos",
    "leave_key": "Enter ou q: sair da mesa",
    "quit_title": "Sair da mesa?",
    "quit_text": "A transcrição fica em\n{path}",
    "quit_keys": "y sai · n ou Esc fica",
    "help_title": "Teclas",
    "help": (
        "←/→        percorrer a mão\n"
        "Enter/Espaço jogar a carta escolhida (marca uma carta ao passar)\n"
        "1-9, 0     a carta nesse lugar (0 é a décima)\n"
        "clique     uma carta, um botão, uma escolha\n"
        "x          Bisca: trocar o 2 de trunfo\n"
        "n          não jogar esta mão (Sobe e Desce)\n"
        "l          a última vaza\n"
        "s          a pontuação\n"
        "+/-        computador mais lento/rápido\n"
        "?          esta ajuda\n"
        "q          sair da mesa (pergunta antes); Ctrl-C sai já\n"
        "Esc        fechar uma janela"
    ),
    "too_small": "O terminal é pequeno demais: {cols}×{rows}; a mesa precisa de {need_cols}×{need_rows}.",
    "error_title": "A mesa parou",
    "start_title": "p2pcards — mesas de cartas sem servidor",
    "start_play": "Jogar contra o computador",
    "start_host": "Abrir uma mesa na rede local",
    "start_lan": "Mesas na rede local",
    "start_join": "Entrar por endereço",
    "start_quit": "Sair",
    "start_game": "Jogo",
    "start_level": "Computador",
    "start_option": "{name}",
    "start_go": "Começar",
    "start_back": "Voltar",
    "start_keys": "↑/↓ mover · ←/→ mudar · Enter escolher · Esc voltar · q sair",
    "start_address": "Endereço (HOST:PORTA)",
    "start_bad_address": "esperava HOST:PORTA, por ex. 192.168.1.20:40123",
    "lan_placeholder": "A descoberta na rede local ainda não está instalada: sem lista. Use “Entrar por endereço”.",
    "lan_none": "Ainda não se vê nenhuma mesa na rede local (a escutar…).",
    "lan_entry": "{game} aberta por {host} em {address} — {free} lugar(es) livre(s)",
    "start_remote": "Jogadores na rede",
    "start_open": "Abrir a mesa",
    "start_saved": "As suas mesas (retomar)",
    "saved_none": "Não há aqui nenhuma mesa sua guardada.",
    "saved_local": "contra o computador",
    "saved_joined": "entrou em {where}",
    "saved_hosted": "aberta em {where}",
    "saved_unfinished": "por acabar: Enter retoma-a",
    "saved_finished": "acabou: jogada até ao fim",
    "saved_voted-out": "acabou: foi votado fora (e assistiu ao resto)",
    "saved_abandoned": "acabou: abandonada, sem vencedor",
    "saved_unknown": "acabou: a mesa continuou sem si; o resultado não se sabe aqui",
    "saved_is_over": "Essa mesa acabou: não há nada a retomar. `p2pcards audit` verifica o registo dela.",
    "saved_no_person": "Ninguém joga no ecrã nessa mesa (só jogadores do computador seus): "
                       "`p2pcards resume {prefix}` continua-a.",
    "saved_failed": "Não foi possível retomar a mesa: {error}",
    # mesas na rede local
    "waiting_reconnect": "à espera de {name} (a religar)",
    "reconnecting": "{names} a religar",
    "offline": "desligado",
    "lobby_title": "p2pcards — mesa na rede local",
    "lobby_hosting": "Abriu uma mesa de {game}; está no lugar {seat}.",
    "lobby_listening": "Os jogadores entram pelo ecrã inicial, ou com: p2pcards join {address}",
    "lobby_announced": "Anunciada na rede local como “{name}”.",
    "lobby_seats": "Lugares ocupados: {taken} de {total}.",
    "lobby_fill": "À espera de jogadores…",
    "lobby_connecting": "A ligar a {address}…",
    "lobby_locating": "À procura de “{name}” na rede local…",
    "lobby_seated": "Sentado no lugar {seat} de {game}, mesa de {host}.",
    "lobby_start": "À espera que a mesa comece…",
    "lobby_failed": "Não foi possível jogar: {reason}",
    "lobby_resumed": "A retomar a mesa {table} de {game} ({deals} mão(s) jogada(s)).",
    "lobby_reconnecting": "A religar aos outros jogadores…",
    "lobby_keys": " q ou Esc: sair ",
    "lobby_keys_failed": " qualquer tecla: voltar ",
}

STRINGS: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT}


def default_lang(environ: Mapping[str, str] | None = None) -> str:
    """``pt`` when the locale (LC_ALL, LC_MESSAGES, LANG, then the C library's) is Portuguese, else ``en``."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return "pt" if value.lower().startswith("pt") else "en"
    if environ is None:
        try:
            loc = locale.getlocale()[0] or ""
        except ValueError:
            loc = ""
        if loc.lower().startswith("pt"):
            return "pt"
    return "en"


class Text:
    """The strings of one language: ``text("deal", n=3)``."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in STRINGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGS)})")
        self.lang = lang
        self._table = STRINGS[lang]

    def __call__(self, key: str, **fields: object) -> str:
        return self._table[key].format(**fields) if fields else self._table[key]

    def suit(self, suit: str) -> str:
        """The suit's name in this language (``H`` -> hearts / copas)."""
        return self(f"suit_{suit}")
