// Playing cards drawn in SVG, ours: the Portuguese 40-card deck ("pt": ivory cards, a
// double frame, court cards in the Portuguese colours) and the French 52-card deck
// ("fr": white cards, every pip card up to the 10).  A card is its two-character code:
// rank in A23456789TJQK, suit in SHDC ("7H", "TC").  The suits are drawn once, as
// symbols of a hidden sprite, and every card uses them.

const NS = "http://www.w3.org/2000/svg";
const RED = "#c8102e";
const BLACK = "#1d1d1b";

const SUIT_PATHS = {
  H: '<path d="M10 18.6C9 17.6 1 12.2 1 6.6 1 3.6 3.3 1.4 6 1.4c1.8 0 3.2 1 4 2.5.8-1.5 2.2-2.5 4-2.5 2.7 0 5 2.2 5 5.2 0 5.6-8 11-9 12Z"/>',
  D: '<path d="M10 .8 18 10l-8 9.2L2 10Z"/>',
  S: '<path d="M10 1C8.6 3 1.6 8 1.6 12.2c0 2.4 1.9 4 4.1 4 1.5 0 2.7-.7 3.4-1.8-.2 1.9-.9 3.4-2.3 4.8h6.4c-1.4-1.4-2.1-2.9-2.3-4.8.7 1.1 1.9 1.8 3.4 1.8 2.2 0 4.1-1.6 4.1-4C18.4 8 11.4 3 10 1Z"/>',
  C: '<circle cx="10" cy="5.4" r="4.1"/><circle cx="5.1" cy="11.6" r="4.1"/><circle cx="14.9" cy="11.6" r="4.1"/>' +
     '<path d="M9.2 9.5h1.6c.2 4 .9 7 2.6 9.5H6.6c1.7-2.5 2.4-5.5 2.6-9.5Z"/>',
};

// pip centres on a 100 x 140 card; "r" marks a pip drawn upside down
const PIPS = {
  2: [[50, 32], [50, 108, "r"]],
  3: [[50, 32], [50, 70], [50, 108, "r"]],
  4: [[30, 32], [70, 32], [30, 108, "r"], [70, 108, "r"]],
  5: [[30, 32], [70, 32], [50, 70], [30, 108, "r"], [70, 108, "r"]],
  6: [[30, 32], [70, 32], [30, 70], [70, 70], [30, 108, "r"], [70, 108, "r"]],
  7: [[30, 32], [70, 32], [50, 51], [30, 70], [70, 70], [30, 108, "r"], [70, 108, "r"]],
  8: [[30, 32], [70, 32], [50, 51], [30, 70], [70, 70], [50, 89, "r"], [30, 108, "r"], [70, 108, "r"]],
  9: [[30, 32], [70, 32], [30, 57], [70, 57], [50, 70], [30, 83, "r"], [70, 83, "r"], [30, 108, "r"],
      [70, 108, "r"]],
  T: [[30, 32], [70, 32], [50, 45], [30, 57], [70, 57], [30, 83, "r"], [70, 83, "r"], [50, 95, "r"],
      [30, 108, "r"], [70, 108, "r"]],
};

// court figures' colours: robe, trim, hat
const COURT = {
  pt: {K: ["#2456a4", "#f2c230", "#f2c230"], Q: ["#c8102e", "#2456a4", "#f2c230"], J: ["#2a7a3a", "#f2c230", "#c8102e"]},
  fr: {K: ["#c8102e", "#2456a4", "#f2c230"], Q: ["#2456a4", "#c8102e", "#f2c230"], J: ["#c8102e", "#f2c230", "#2456a4"]},
};

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}

export function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

const SYMBOLS = {S: "♠", H: "♥", D: "♦", C: "♣"};

export function cardLabel(code) {
  return rankLabel(code) + SYMBOLS[code[1]];
}

/** The hidden sprite with the four suits; put into the document once. */
export function installSprite(doc) {
  if (doc.getElementById("p2p-suits")) return;
  const svg = doc.createElementNS(NS, "svg");
  svg.setAttribute("id", "p2p-suits");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "sprite");
  svg.innerHTML = Object.entries(SUIT_PATHS)
    .map(([s, p]) => `<symbol id="suit-${s}" viewBox="0 0 20 20">${p}</symbol>`).join("") +
    '<pattern id="back-pt" width="10" height="10" patternUnits="userSpaceOnUse">' +
    '<rect width="10" height="10" fill="#9b1b1f"/><path d="M0 5h10M5 0v10" stroke="#d9a441" stroke-width="1.2"/>' +
    '<circle cx="5" cy="5" r="1.6" fill="#f2e6c8"/></pattern>' +
    '<pattern id="back-fr" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
    '<rect width="8" height="8" fill="#1f4e8c"/><path d="M0 4h8M4 0v8" stroke="#8fb3e0" stroke-width="1"/></pattern>';
  doc.body.prepend(svg);
}

function pip(suit, x, y, size, flip) {
  const h = size / 2;
  const t = flip ? ` transform="rotate(180 ${x} ${y})"` : "";
  return `<use href="#suit-${suit}" x="${x - h}" y="${y - h}" width="${size}" height="${size}"${t}/>`;
}

function corner(code, colour) {
  const r = rankLabel(code);
  const size = r.length > 1 ? 17 : 21;
  return `<text x="11" y="24" text-anchor="middle" font-size="${size}" font-weight="700" fill="${colour}" ` +
    `font-family="Georgia, 'DejaVu Serif', serif" letter-spacing="-1">${r}</text>` + pip(code[1], 11, 34, 13, false);
}

function court(code, deck) {
  const [robe, trim, hat] = COURT[deck][code[0]];
  const colour = isRed(code) ? RED : BLACK;
  let headwear;
  if (code[0] === "K") {
    headwear = `<path d="M36 46 38 32 44 40 50 29 56 40 62 32 64 46Z" fill="${hat}" stroke="${BLACK}" stroke-width="1"/>`;
  } else if (code[0] === "Q") {
    headwear = `<path d="M38 46c0-8 5-13 12-13s12 5 12 13Z" fill="${hat}" stroke="${BLACK}" stroke-width="1"/>` +
      `<circle cx="50" cy="33" r="2.5" fill="${robe}"/>`;
  } else {
    headwear = `<path d="M35 45c2-8 8-11 15-11s13 3 15 11Z" fill="${hat}" stroke="${BLACK}" stroke-width="1"/>` +
      `<path d="M62 40c6-4 9-2 10 1" fill="none" stroke="${trim}" stroke-width="2"/>`;
  }
  const frame = deck === "pt"
    ? `<rect x="20" y="20" width="60" height="100" rx="3" fill="#f7edd5" stroke="${colour}" stroke-width="1.5"/>` +
      `<rect x="23" y="23" width="54" height="94" rx="2" fill="none" stroke="${trim}" stroke-width="1"/>`
    : `<rect x="20" y="20" width="60" height="100" rx="3" fill="#fdfbf4" stroke="${colour}" stroke-width="1.5"/>`;
  return frame + headwear +
    `<circle cx="50" cy="53" r="9" fill="#f4d2aa" stroke="${BLACK}" stroke-width="1"/>` +
    `<path d="M32 116c0-22 6-46 18-52 12 6 18 30 18 52Z" fill="${robe}" stroke="${BLACK}" stroke-width="1"/>` +
    `<path d="M42 66h16l-3 12h-10Z" fill="${trim}"/>` +
    `<path d="M50 64v50" stroke="${trim}" stroke-width="2"/>` +
    pip(code[1], 70, 106, 12, false) + pip(code[1], 30, 34, 12, false);
}

/** A face-up card as an SVG string (``deck``: "pt" or "fr"). */
export function cardSVG(code, deck = "fr") {
  const colour = isRed(code) ? RED : BLACK;
  const face = deck === "pt" ? "#fffaf0" : "#ffffff";
  const border = deck === "pt"
    ? `<rect x="4.5" y="4.5" width="91" height="131" rx="6" fill="none" stroke="${colour}" stroke-opacity=".35"/>`
    : "";
  let middle;
  const r = code[0];
  if (r === "A") {
    middle = pip(code[1], 50, 70, deck === "pt" && code[1] === "S" ? 52 : 40, false);
    if (deck === "pt" && code[1] === "S") {
      middle += '<circle cx="50" cy="70" r="31" fill="none" stroke="#d9a441" stroke-width="2"/>';
    }
  } else if (r === "K" || r === "Q" || r === "J") {
    middle = court(code, deck);
  } else {
    middle = (PIPS[r] || []).map(([x, y, f]) => pip(code[1], x, y, 19, f === "r")).join("");
  }
  return `<svg xmlns="${NS}" viewBox="0 0 100 140" class="face" role="img" aria-label="${cardLabel(code)}">` +
    `<rect x="1" y="1" width="98" height="138" rx="8" fill="${face}" stroke="#555" stroke-width="1.2"/>` +
    border + `<g fill="${colour}">${middle}${corner(code, colour)}` +
    `<g transform="rotate(180 50 70)">${corner(code, colour)}</g></g></svg>`;
}

/** A card's back as an SVG string. */
export function backSVG(deck = "fr") {
  return `<svg xmlns="${NS}" viewBox="0 0 100 140" class="back" aria-hidden="true">` +
    `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fff" stroke="#555" stroke-width="1.2"/>` +
    `<rect x="7" y="7" width="86" height="126" rx="5" fill="url(#back-${deck === "pt" ? "pt" : "fr"})"/></svg>`;
}

/** A suit symbol as a small inline SVG (for a trump's mark). */
export function suitSVG(suit) {
  const colour = suit === "H" || suit === "D" ? RED : BLACK;
  return `<svg viewBox="0 0 20 20" class="suit" aria-hidden="true"><use href="#suit-${suit}" fill="${colour}"/></svg>`;
}
