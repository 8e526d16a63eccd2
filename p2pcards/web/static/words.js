// The page's own words (buttons, titles), sent by the peer in the person's language.

let words = {};

export function setWords(table) {
  words = table || {};
}

/** A word of the page (its key when the peer sent none). */
export function w(key) {
  return words[key] ?? key;
}
