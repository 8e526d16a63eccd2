"""Words, in English and Portuguese, for every face of the program: the screens, text
mode, the commands and the history's exports (``--lang en|pt``; default from the locale).

* :mod:`~p2pcards.words.text` -- :class:`Text`, the strings of one language (a float
  with the language's decimal mark), :func:`default_lang`, and :class:`Said`, an error
  whose message is words (English by ``str()``, any language by ``words(lang)``);
* :mod:`~p2pcards.words.en`, :mod:`~p2pcards.words.pt` -- the catalogues, data only;
* :mod:`~p2pcards.words.games` -- a game's own words (its text keys, its lines and
  summaries) in a language.

Nothing here draws a screen or does I/O.
"""

from p2pcards.words.games import game_word, line_text, summary_text
from p2pcards.words.text import LANGS, STRINGS, Said, Text, default_lang

__all__ = ["LANGS", "STRINGS", "Said", "Text", "default_lang", "game_word", "line_text", "summary_text"]
