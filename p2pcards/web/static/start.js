// The start page: play against the computer, host a LAN table, the live list of LAN
// tables, join by address, your tables, past games (replays) and the statistics, with
// their charts drawn from the numbers `p2pcards stats --json` prints.

import {barChart, formLine, lineChart} from "./charts.js";
import {button, esc, lines} from "./dom.js";
import {w} from "./words.js";

function form(v, which) {
  const rows = v[which].map((r) => {
    const options = r.values.map((value, i) =>
      `<option${i === r.chosen ? " selected" : ""}>${esc(value)}</option>`).join("");
    const id = `${which}-${r.row}`;
    return `<div class="row"><label for="${esc(id)}">${esc(r.label)}</label>` +
      `<select id="${esc(id)}" data-key="${esc(id)}" data-a="form" data-form="${which}" data-row="${esc(r.row)}">` +
      `${options}</select>${r.help ? `<p class="help">${esc(r.help)}</p>` : ""}</div>`;
  }).join("");
  const seed = which === "play"
    ? `<div class="row"><label for="seed">${esc(w("web_seed"))}</label><input id="seed" data-key="seed" ` +
      `inputmode="numeric" autocomplete="off" value="${esc(v.seed)}"><p class="help">${esc(w("web_seed_help"))}</p></div>`
    : "";
  const go = button(esc(w(which === "host" ? "start_open" : "start_go")), {a: "go", form: which}, "primary",
    which === "play" ? ' data-with="seed"' : "");
  return `<form class="form" data-form="${which}">${rows}${seed}<div class="buttons">${go}</div></form>`;
}

function list(rows, action, note) {
  if (!rows.length) return `<p class="help">${esc(note)}</p>`;
  return `<div class="list">${rows.map((r, i) =>
    button(`<span>${esc(r.text)}</span>${r.state ? `<small>${esc(r.state)}</small>` : ""}` +
      `${r.reason ? `<small class="why">${esc(r.reason)}</small>` : ""}`,
    {a: action, index: i}, `row${r.open === false || r.reason ? " closed" : ""}`)).join("")}</div>`;
}

function statsCharts(data) {
  if (!data) return "";
  const s = data.stats;
  const title = (game) => data.titles[game] ?? game;
  let out = "";
  const bars = [];
  for (const p of s.players) {
    const rows = Object.entries(p.games).map(([game, g]) => {
      bars.push({label: `${p.name} · ${title(game)}`, value: g.won, total: g.matches});
      return `<tr data-player="${esc(p.fingerprint)}" data-game="${esc(game)}"><td>${esc(title(game))}</td>` +
        `<td class="n" data-stat="matches">${g.matches}</td><td class="n" data-stat="won">${g.won}</td>` +
        `<td class="n"><span data-stat="deals_won">${g.deals_won}</span>/<span data-stat="deals">${g.deals}</span></td>` +
        `<td class="n" data-stat="average_points">${g.average_points ?? "–"}</td><td>${formLine(g.form)}</td></tr>`;
    }).join("");
    out += `<h3>${esc(p.name)} <small>${esc(p.fingerprint)}</small></h3><table class="stats"><thead><tr>` +
      `<th>${esc(w("web_stats_game"))}</th><th>${esc(w("web_matches"))}</th><th>${esc(w("web_stats_won"))}</th>` +
      `<th>${esc(w("web_stats_deals"))}</th><th>${esc(w("web_stats_average"))}</th>` +
      `<th>${esc(w("web_stats_form"))}</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
  if (bars.length) out = `<h3>${esc(w("web_stats_won"))}</h3>${barChart(bars, w("web_stats_won"))}` + out;
  if (s.partnerships.length) {
    // the computer's seats by level, in the page's words
    const name = (id, i, names) => (id.startsWith("bot:") ? data.computer[id.slice(4)] ?? names[i] : names[i]);
    out += `<h3>${esc(w("web_stats_partners"))}</h3>` + barChart(s.partnerships.map((p) =>
      ({label: `${title(p.game)}: ${p.players.map((id, i) => name(id, i, p.names)).join(" & ")}`, value: p.won,
        total: p.matches})), w("web_stats_partners"));
  }
  if (s.bots.length) {
    out += `<h3>${esc(w("web_stats_bots"))}</h3>` + barChart(s.bots.map((b) =>
      ({label: `${title(b.game)} · ${data.levels[b.level] ?? b.level}`, value: b.won, total: b.matches})),
    w("web_stats_bots"));
  }
  const last = s.last_match;
  if (last && last.points.length) {
    const series = last.names.map((_, side) => last.points.map((deal) => deal[side] ?? null));
    out += `<h3>${esc(w("web_stats_last"))} · ${esc(title(last.game))}</h3>` +
      lineChart(last.names, series, last.points.map((_, i) => String(i + 1)), w("web_stats_last"));
  }
  return `<div class="stats-charts">${out}</div>`;
}

function body(v) {
  switch (v.view) {
    case "play":
    case "host":
      return form(v, v.view);
    case "lan":
      return (v.lan_note ? `<p class="help">${esc(v.lan_note)}</p>` : "") + list(v.lan, "lan", "");
    case "join":
      return `<form class="form"><div class="row"><label for="address">${esc(w("start_address"))}</label>` +
        `<input id="address" data-key="address" autocomplete="off" value="${esc(v.address)}" ` +
        `placeholder="192.168.1.20:40123"><p class="help">${esc(w("web_join_help"))}</p></div>` +
        `<div class="buttons">${button(esc(w("web_join")), {a: "join"}, "primary", ' data-with="address"')}</div></form>`;
    case "saved":
      return list(v.saved, "saved", v.saved_note);
    case "past":
      return list(v.past, "past", v.past_note);
    case "stats":
      return statsCharts(v.stats_data) +
        `<details class="stats-text"${v.stats_data ? "" : " open"}><summary>${esc(w("web_stats_text"))}</summary>` +
        `<pre>${esc(v.stats.join("\n"))}</pre></details>`;
    case "message":
      return lines(v.message.split("\n"), "message") +
        `<div class="buttons">${button(esc(w("web_ok")), {a: "back"}, "primary")}</div>`;
    default:
      return `<div class="menu-big">${v.menu.filter((m) => m.item !== "quit").map((m, i) =>
        button(`<b>${i + 1}</b> ${esc(m.label)}`, {a: "view", view: m.item}, "big")).join("")}</div>`;
  }
}

// A name never chosen: asked once, above everything else (as the terminal asks it).
function nameForm(me) {
  if (!me || !me.ask) return "";
  return `<form class="form name-form" data-form="name"><div class="row"><label for="name">` +
    `${esc(w("web_name"))}</label><input id="name" data-key="name" autocomplete="nickname" ` +
    `value="${esc(me.name)}"><p class="help">${esc(w("web_name_help"))}</p>` +
    `${me.error ? `<p class="error">${esc(me.error)}</p>` : ""}</div>` +
    `<div class="buttons">${button(esc(w("web_name_keep")), {a: "name"}, "primary", ' data-with="name"')}` +
    "</div></form>";
}

export function renderStart(v) {
  const nav = v.menu.map((m) => button(esc(m.label), {a: m.item === "quit" ? "quit" : "view", view: m.item},
    `nav${m.item === v.view ? " here" : ""}${m.item === "quit" ? " quit" : ""}`)).join("");
  const langs = ["en", "pt"].map((lang) => button(lang.toUpperCase(), {a: "lang", lang},
    `lang${v.lang === lang ? " here" : ""}`, ` aria-label="${esc(w("web_language"))}: ${lang}"`)).join("");
  const notice = v.notice ? `<p class="notice">${esc(v.notice)}</p>` : "";
  const error = v.error ? `<p class="error">${esc(v.error)}</p>` : "";
  const title = v.menu.find((m) => m.item === v.view);
  return `<header class="bar start"><h1 class="head">${esc(w("start_title"))}</h1><p class="langs">${langs}</p></header>` +
    `<nav class="menu">${nav}</nav><main class="start-body" data-view="${esc(v.view)}">${nameForm(v.me)}${notice}` +
    `${title ? `<h2>${esc(title.label)}</h2>` : ""}${body(v)}${error}</main>`;
}
