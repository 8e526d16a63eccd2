// The table (and a replay, and a LAN table's lobby) drawn from the peer's view: seats
// around the felt, the trick in the middle, the hand at the bottom, the game's decision
// dialog and the windows (a deal's result, the match's end, scores, last trick, help).

import {backSVG, cardSVG, suitSVG} from "./cards.js";
import {lineChart} from "./charts.js";
import {button, esc, lines} from "./dom.js";
import {w} from "./words.js";

const WHERE = ["top", "left", "right", "bottom"];

function mini(code, deck, cls = "mini") {
  return `<span class="${cls}" data-card="${esc(code)}">${cardSVG(code, deck)}</span>`;
}

function seat(s, deck) {
  const cls = ["seat", s.where, s.turn ? "turn" : "", s.you ? "you" : "", s.active ? "" : "out",
    s.offline ? "offline" : ""].filter(Boolean).join(" ");
  const dealer = s.dealer ? `<span class="chip" title="dealer">D</span>` : "";
  const who = [s.marker, s.runs].filter(Boolean).map(esc).join(" · ");
  let cards = "";
  if (s.face.length) {
    cards = `<div class="face-up">${s.face.map((c) => mini(c, deck)).join("")}</div>`;
  } else if (!s.you && s.count) {
    const backs = Array.from({length: Math.min(s.count, 13)}, () => `<span class="back-mini">${backSVG(deck)}</span>`);
    cards = `<div class="backs" aria-label="${esc(s.cards)}">${backs.join("")}</div>`;
  }
  const facts = [s.you ? "" : s.cards, s.detail].filter(Boolean).map(esc).join(" · ");
  return `<section class="${cls}" data-seat="${s.seat}"><h3>${s.turn ? "▶ " : ""}${esc(s.name)}${dealer}</h3>` +
    `<p class="who">${who}</p>${cards}<p class="facts">${facts}</p></section>`;
}

function trick(v) {
  const slots = WHERE.map((where) => {
    const card = v.trick[where];
    return `<div class="slot ${where}">${card ? mini(card, v.deck, "played") : ""}</div>`;
  }).join("");
  const winner = v.trick_winner ? `<p class="winner">${esc(v.trick_winner)}</p>` : "";
  return `<div class="trick seats${v.seats_n}${v.trick_winner ? " done" : ""}">${slots}${winner}</div>`;
}

function hand(v) {
  const cards = v.hand.map((c) => {
    const cls = ["card", c.legal === true ? "legal" : c.legal === false ? "illegal" : "", c.cursor ? "cursor" : "",
      c.picked ? "picked" : "", c.received ? "received" : ""].filter(Boolean).join(" ");
    return `<button type="button" class="${cls}" data-a="card" data-index="${c.index}" data-card="${esc(c.card)}" ` +
      `aria-label="${esc(c.label)}" aria-pressed="${c.picked}"><span class="k">${esc(c.key)}</span>` +
      `${cardSVG(c.card, v.deck)}</button>`;
  }).join("");
  return `<div class="hand" aria-label="${esc(w("web_your_hand"))}">${cards}</div>`;
}

function dialog(d) {
  if (!d) return "";
  let body = lines(d.lines);
  if (d.pick) {
    body += `<div class="buttons">${button(`${esc(d.confirm)} (${d.picked}/${d.pick[1]})`, {a: "confirm"}, "primary")}` +
      `${d.decline ? button(esc(d.decline), {a: "decline"}) : ""}</div>`;
  } else {
    body += `<div class="buttons options">${d.options.map((o, i) =>
      button(esc(o.label), {a: "choice", index: i}, `option${o.red ? " red" : ""}${o.cursor ? " cursor" : ""}`))
      .join("")}</div>`;
  }
  return `<div class="dialog" role="dialog" data-kind="${esc(d.kind)}"><h2>${esc(d.title)}</h2>${body}</div>`;
}

function windowButtons(v, win) {
  const kind = win.kind;
  if (kind === "summary") {
    return button(esc(w(win.next === "result" ? "web_see_result" : "web_continue")), {a: "continue"}, "primary");
  }
  if (kind === "final" || kind === "error") {
    return button(esc(w("web_back_to_start")), {a: v.screen === "replay" ? "leave" : "continue"}, "primary");
  }
  if (kind === "quit") {
    return button(esc(w("web_leave_yes")), {a: "leave_yes"}, "primary danger") +
      button(esc(w("web_stay")), {a: "close"});
  }
  return button(esc(w("web_close")), {a: "close"});
}

function windowBody(v, win) {
  if (win.kind === "last" && win.cards.length) {
    return `<div class="last">${win.cards.map((p) =>
      `<figure>${mini(p.card, v.deck)}<figcaption>${esc(p.name)}</figcaption></figure>`).join("")}</div>` +
      lines(win.lines);
  }
  if (v.screen === "replay" && win.kind === "deals") {
    return `<div class="deals">${v.replay.deals.map((line, i) =>
      button(esc(line), {a: "deal", index: i}, i === v.replay.deal_cursor ? "row cursor" : "row")).join("")}</div>`;
  }
  if (v.screen === "replay" && win.kind === "charts") {
    const c = v.replay.chart;
    return lineChart(c.labels, c.series, c.deals, win.title) || lines(win.lines);
  }
  if (win.kind === "help") return `<pre class="keys-help">${esc(win.lines.join("\n"))}</pre>`;
  return lines(win.lines);
}

function windowHTML(v) {
  const win = v.window;
  if (!win) return "";
  return `<div class="backdrop"><div class="window" role="dialog" data-kind="${esc(win.kind)}">` +
    `<h2>${esc(win.title)}</h2><div class="body">${windowBody(v, win)}</div>` +
    `<div class="buttons">${windowButtons(v, win)}</div></div></div>`;
}

function tools(v) {
  if (v.screen === "replay") {
    const step = (label, what) => button(esc(w(label)), {a: "step", do: what}, "tool");
    return step("web_replay_first", "first_of_deal") + step("web_replay_prev_deal", "previous_deal") +
      step("web_replay_prev_trick", "previous_trick") + step("web_replay_prev_step", "previous_step") +
      step("web_replay_next_step", "next_step") + step("web_replay_next_trick", "next_trick") +
      step("web_replay_next_deal", "next_deal") + step("web_replay_last", "last_of_deal") +
      step("web_replay_seat", "turn") +
      button(esc(w("replay_deals_title")), {a: "open", which: "deals"}, "tool") +
      button(esc(w("replay_chart_title")), {a: "open", which: "charts"}, "tool") +
      button(esc(w("web_help")), {a: "open", which: "help"}, "tool") +
      button(esc(w("web_replay_leave")), {a: "leave"}, "tool leave");
  }
  const hint = v.hints_allowed ? button(esc(w("web_hint")), {a: "hint"}, `tool${v.turn ? "" : " idle"}`) : "";
  return button(esc(w("web_scores")), {a: "window", which: "s"}, "tool") +
    button(esc(w("web_last")), {a: "window", which: "l"}, "tool") + hint +
    button(esc(w("web_help")), {a: "window", which: "?"}, "tool") +
    button("−", {a: "pace", which: "-"}, "tool pace", ` title="${esc(w("web_faster"))}"`) +
    button("+", {a: "pace", which: "+"}, "tool pace", ` title="${esc(w("web_slower"))}"`) +
    button(esc(w("web_leave")), {a: "leave"}, "tool leave");
}

export function renderTable(v) {
  const around = v.seats.filter((s) => s.where !== "bottom").map((s) => seat(s, v.deck)).join("");
  const me = v.seats.filter((s) => s.where === "bottom").map((s) => seat(s, v.deck)).join("");
  const trumpCard = v.trump_card ? mini(v.trump_card, v.deck, "trump-card") : "";
  const trumpMark = v.trump_suit ? suitSVG(v.trump_suit) : "";
  const prompt = v.message || v.hint || v.prompt;
  const extra = (v.swap ? button(esc(v.swap), {a: "swap"}, "primary") : "") +
    (v.finish ? button(esc(w("web_finish")), {a: "finish"}, "primary") : "");
  const notices = v.notices.map((n) => `<p>${esc(n)}</p>`).join("");
  return `<header class="bar"><h1 class="head">${esc(v.header)}</h1>` +
    `<p class="trump">${trumpMark}${esc(v.trump)}${trumpCard}</p><nav class="tools">${tools(v)}</nav></header>` +
    `<main class="felt seats${v.seats_n}" aria-label="${esc(w("web_table"))}">${around}${trick(v)}` +
    `<div class="notices" aria-live="polite">${notices}</div>${me}</main>` +
    `<aside class="scores"><h2>${esc(w("scores"))}</h2>${lines(v.scores)}</aside>` +
    `<div class="prompt${v.turn ? " your-turn" : ""}"><span>${esc(prompt)}</span>${extra}</div>` +
    `${hand(v)}${dialog(v.dialog)}<footer class="status" id="status">${esc(v.status)}</footer>${windowHTML(v)}`;
}

export function renderLobby(v) {
  const error = v.error ? `<p class="error">${esc(v.error)}</p>${button(esc(w("web_ok")), {a: "ok"}, "primary")}` : "";
  return `<header class="bar"><h1 class="head">${esc(v.title)}</h1></header><main class="lobby">` +
    `${lines(v.lines)}<p class="status">${esc(v.status)}</p>${error}` +
    `<div class="buttons">${button(esc(w("web_leave")), {a: "leave"}, "leave")}</div></main>`;
}

/** Lay the hand out to the page's width: cards overlap when they do not fit side by side. */
export function sizeHand(root) {
  const hand = root.querySelector(".hand");
  if (!hand) return;
  const cards = hand.querySelectorAll(".card");
  const n = cards.length;
  const room = hand.clientWidth - 8;
  const width = Math.max(48, Math.min(104, room / 5.2, window.innerHeight / 5.5));
  const step = n > 1 ? Math.min(width + 6, (room - width) / (n - 1)) : width;
  hand.style.setProperty("--cw", `${width.toFixed(1)}px`);
  hand.style.setProperty("--gap", `${(step - width).toFixed(1)}px`);
}
