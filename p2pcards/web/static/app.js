// The page: one WebSocket to the person's own peer.  The peer sends each screen as a
// view (every word already in the person's language); the page draws it and sends back
// what the person does -- a click, a tap, or a key named as the terminal names it.
// Nothing here knows a game, and nothing is decided here: the peer's view models do.

import {installSprite} from "./cards.js";
import {button, esc} from "./dom.js";
import {renderStart} from "./start.js";
import {renderLobby, renderTable, sizeHand} from "./table.js";
import {setWords, w} from "./words.js";

const app = document.getElementById("app");
const state = {socket: null, view: null, over: false, retry: null, inputs: {}, shown: ""};

function send(msg) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify(msg));
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/ws${location.search}`);
  state.socket = socket;
  socket.onopen = () => document.body.classList.remove("offline");
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    if (state.socket !== socket || state.over) return;
    document.body.classList.add("offline");
    document.querySelector(".offline-banner").textContent = w("web_offline");
    state.retry = setTimeout(connect, 1000);
  };
}

function receive(msg) {
  if (msg.words) setWords(msg.words);
  if (msg.t === "view") {
    state.view = msg.view;
    render();
  } else if (msg.t === "taken" || msg.t === "stopped") {
    state.over = true;
    document.body.dataset.screen = msg.t;
    const again = msg.t === "taken" ? button(esc(w("web_take_back")), {a: "reload"}, "primary") : "";
    app.innerHTML = `<div class="notice-page"><p>${esc(w(msg.t === "taken" ? "web_taken" : "web_stopped"))}</p>` +
      `${again}</div>`;
  } else if (msg.t === "words" && state.view) {
    render();
  }
}

function render() {
  const v = state.view;
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.key : undefined;
  document.body.dataset.screen = v.screen;
  document.body.dataset.version = v.version;
  document.documentElement.lang = v.lang === "pt" ? "pt-PT" : "en";
  document.title = v.screen === "table" || v.screen === "replay" ? `${v.header} — p2pcards` : "p2pcards";
  let html;
  if (v.screen === "start") html = renderStart(v);
  else if (v.screen === "lobby") html = renderLobby(v);
  else html = renderTable(v);
  if (html === state.shown) return;
  state.shown = html;
  app.innerHTML = html;
  for (const input of app.querySelectorAll("input[data-key]")) {
    const kept = state.inputs[input.dataset.key];
    if (kept !== undefined) input.value = kept;
  }
  if (focused) {
    const again = app.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
  sizeHand(app);
}

// ---------------------------------------------------------------- what the person does
function message(el) {
  const msg = {};
  for (const [key, value] of Object.entries(el.dataset)) {
    if (key === "key" || key === "with") continue;
    msg[key] = key === "index" ? parseInt(value, 10) : value;
  }
  if (el.dataset.with) {
    for (const name of el.dataset.with.split(",")) {
      const input = app.querySelector(`[data-key="${name}"]`);
      if (input) msg[name] = input.value;
    }
  }
  return msg;
}

app.addEventListener("click", (event) => {
  const el = event.target.closest("[data-a]");
  if (!el || el.tagName === "SELECT" || el.tagName === "INPUT") return;
  event.preventDefault();
  if (el.dataset.a === "reload") {
    location.reload();
    return;
  }
  const msg = message(el);
  if (el.dataset.with) for (const name of el.dataset.with.split(",")) delete state.inputs[name];
  send(msg);
});

app.addEventListener("change", (event) => {
  const el = event.target;
  if (el.tagName === "SELECT" && el.dataset.a) send({...message(el), index: el.selectedIndex});
});

app.addEventListener("input", (event) => {
  const el = event.target;
  if (el.dataset.key) state.inputs[el.dataset.key] = el.value;
});

app.addEventListener("submit", (event) => {
  event.preventDefault();
  const go = event.target.querySelector("button[data-a]");
  if (go) go.click();
});

const KEYS = {
  ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down", Enter: "enter", " ": "space",
  Escape: "escape", Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown",
};

document.addEventListener("keydown", (event) => {
  const v = state.view;
  if (!v || event.ctrlKey || event.metaKey || event.altKey || state.over) return;
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  if (v.screen === "start") {
    if (event.key === "Escape") send({a: "back"});
    else if (v.view === "menu" && /^[1-9]$/.test(event.key) && v.menu[+event.key - 1]) {
      send({a: "view", view: v.menu[+event.key - 1].item});
    } else return;
    event.preventDefault();
    return;
  }
  if (v.screen === "lobby") {
    if (event.key === "q" || event.key === "Escape") send({a: "leave"});
    else if (v.error) send({a: "ok"});
    return;
  }
  const name = KEYS[event.key] ?? (event.key.length === 1 ? event.key : null);
  if (name === null) return;
  if ((name === "enter" || name === "space") && target && target.tagName === "BUTTON" && target.closest("#app")) {
    return; // a focused button is pressed by the key itself
  }
  event.preventDefault();
  send({a: "key", key: name});
});

window.addEventListener("resize", () => sizeHand(app));

installSprite(document);
connect();
