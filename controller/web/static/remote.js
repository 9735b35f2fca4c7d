// The remote page (docs/remote.md): a friend anywhere plays one colour from
// the invitation link, talking only to the broker (MQTT over WebSockets, the
// vendored mqtt package); or a finished game's share link, replayed from the
// fragment alone. Uses strings.js (t, fill, useCatalog), board.js
// (drawBoard), protocol.js (protocol) and the vendored mqtt (mqtt).
"use strict";

const { LinkError, parseLink, parseShare, seal, sequel, topics, unseal } = protocol;

const $ = (id) => document.getElementById(id);
const RESEND_MS = 1000; // a request unanswered this long is sent again, the same message
let messages = {}; // the catalog's sentences, for the board's (Text.data(): message and values)
let link = null;
let names = null;
let client = null;
// This page's word that it is open (docs/remote.md, "here"): each connection
// has a name, and leaves the broker a will saying it is gone, made before
// the connection (the will of the next one is made as each one begins).
let connName = null; // the connection up now
let nextWill = null; // { conn, will }: what the next connection leaves
let boardConn = null; // the board's connection last heard (its presence is retained)
let state = null;
const high = {}; // the last number taken on each topic
let lastSeq = 0;
let pending = null; // the request on its way: { seq, payload, move, ply }
let note = null; // the message line, kept as what it says: { key, values } or { reason }
let share = null; // a share link's game: { moves, positions, scores, ... } and where it is
let next = null; // the game the board began next on this link: { game, key } (base64url)
let rulesTable = null; // GET /api/rules (or rules.json): what a next game's rules may be
// set while following a chain of finished games to the one being played:
// an old link opened late reaches it with one tap, not one a game missed
const FOLLOWING = "popref-following";

// -- sentences ----------------------------------------------------------------------------

// The page's sentences and the catalog's: from popref's own server, else
// (a broker's static server) the files `popref remote-page` wrote beside the page.
async function loadCatalog(wanted) {
  try {
    const query = "?messages=1" + (wanted ? "&lang=" + encodeURIComponent(wanted) : "");
    const response = await fetch("/api/strings" + query);
    if (response.ok) return useMessages(await response.json());
  } catch (_) {
    // no popref here: the files below
  }
  const index = await (await fetch("strings/index.json")).json();
  const code = wanted in index.languages ? wanted : browserLanguage(index.languages);
  useMessages(await (await fetch("strings/" + code + ".json")).json());
}

function useMessages(catalog) {
  useCatalog(catalog);
  messages = catalog.messages || {};
}

function browserLanguage(known) {
  for (const tag of navigator.languages || []) {
    const code = tag.toLowerCase().split("-")[0];
    if (code in known) return code;
  }
  return "en";
}

// A sentence of the board's, as message and values (controller/i18n/text.py,
// Text.data()), in the page's language; a plain string is said as it is.
function said(data) {
  if (typeof data === "string") return data;
  if (!Array.isArray(data)) return "";
  return data.map((piece) => (typeof piece === "string" ? piece : sayMessage(piece))).join("");
}

function sayMessage(message) {
  const id = message.id;
  const found = messages[message.context ? message.context + "\u0004" + id : id];
  let pattern = typeof found === "string" ? found : id;
  if (message.plural !== undefined) {
    pattern = Array.isArray(found) ? found[Math.min(pluralIndex(message.count), found.length - 1)] : message.count === 1 ? id : message.plural;
  }
  const values = {};
  for (const [name, value] of Object.entries(message.values || {})) values[name] = said(value) || String(value);
  return fill(pattern, values);
}

function colourName(colour) {
  return t("colour_" + colour);
}

// The result as the friend reads it: theirs.
function yourResult(result) {
  if (result === "draw") return t("you_drew");
  return result === link.colour ? t("you_won") : result === "red" || result === "yellow" ? t("you_lost") : t("result_unknown");
}

function resultText(result) {
  return ["red", "yellow", "draw"].includes(result) ? t("result_" + result) : t("result_unknown");
}

// -- the live game ----------------------------------------------------------------------

function randomHex(size) {
  return Array.from(crypto.getRandomValues(new Uint8Array(size)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// A connection's name and its will: this page gone, signed now.
async function willOf() {
  const conn = randomHex(8);
  const payload = await seal(link.key, link.game, nextSeq(), "here", { up: false, conn });
  return { conn, will: { topic: names.remote, payload, qos: 1, retain: false } };
}

async function connect() {
  names = topics(link.game);
  nextWill = await willOf();
  client = mqtt.connect(link.web, {
    will: nextWill.will,
    clientId: "popref-page-" + randomHex(6),
    username: link.user || undefined,
    password: link.password || undefined,
    protocolVersion: 4,
    reconnectPeriod: 2000,
    connectTimeout: 10000,
    // its default keeps time in a worker made from a blob: the policy allows no such script
    timerVariant: "native",
  });
  client.on("connect", async () => {
    setLink(true);
    connName = nextWill.conn; // the will this connection left names it
    client.subscribe([names.state, names.board], { qos: 1 }, () => {
      send("hello", { client: "popref page" });
      sayHere();
    });
    nextWill = await willOf();
    client.options.will = nextWill.will; // mqtt.js sends it with its next CONNECT
  });
  client.on("offline", () => setLink(false));
  client.on("close", () => setLink(false));
  client.on("message", arrived);
  setInterval(resend, RESEND_MS);
}

function setLink(on) {
  $("link").textContent = t(on ? "live" : "offline");
  $("link").className = "link " + (on ? "on" : "off");
}

// Above every number this page used, the board took, or an earlier page sent.
function nextSeq() {
  const taken = state && Number.isSafeInteger(state.remote_seq) ? state.remote_seq : 0;
  lastSeq = Math.max(lastSeq + 1, taken + 1, Date.now());
  return lastSeq;
}

function sayHere() {
  if (connName) send("here", { up: true, conn: connName });
}

async function send(kind, value) {
  const seq = nextSeq();
  const payload = await seal(link.key, link.game, seq, kind, value);
  client.publish(names.remote, payload, { qos: 1 });
  return { seq, payload };
}

// Board messages are checked one after another, in the order they came; at
// most QUEUE wait, so a stranger's flood on the board's topics cannot grow the
// tab without end (a board message lost to it comes again: the state is
// retained and sent anew, a reply answers the request's next copy).
const QUEUE = 64;
let checking = Promise.resolve();
let waiting = 0;

function arrived(topic, payload) {
  if (waiting >= QUEUE) return;
  waiting += 1;
  checking = checking.then(() => take(topic, payload)).catch(() => {}).finally(() => { waiting -= 1; });
}

// A board message: taken only when it is signed with the link's secret, for
// its game, and numbered above the last one taken on its topic.
async function take(topic, payload) {
  if (topic !== names.state && topic !== names.board) return;
  const message = await unseal(link.key, link.game, payload);
  if (!message || message.seq <= (high[topic] || 0)) return;
  high[topic] = message.seq;
  if (message.kind === "presence") {
    // the board connected again (a restart): it learns that this page is
    // open. The first word heard is the retained one, of the board this
    // page told as it connected, or of one gone (its will)
    if (typeof message.body.conn === "string" && message.body.conn !== boardConn) {
      if (boardConn !== null && message.body.up === true) sayHere();
      boardConn = message.body.conn;
    }
  } else if (message.kind === "state") {
    state = message.body;
    if (pending && answered()) pending = null;
    next = state.invitation === "ended" ? await sequelOf(state.sequel) : null;
    // on the way to the game being played: the finished ones between are passed
    if (next && sessionStorage.getItem(FOLLOWING)) return follow();
    sessionStorage.removeItem(FOLLOWING); // arrived, or the chain ends here
  } else if (message.kind === "reply" && pending && message.body.request_seq === pending.seq) {
    pending = null;
    note = message.body.ok ? null : { reason: message.body.reason_text || message.body.reason };
  }
  render();
}

// The next game on this link, when the ended state names this link's own
// sequel (only the secret's holder can work it out) in rules this popref
// plays, else null.
async function sequelOf(named) {
  if (!named || typeof named !== "object" || !knownRules(named)) return null;
  const found = await sequel(link.key);
  return named.game === found.game ? found : null;
}

// The next game's rules and house rules are ones the rules table names
// (controller/remote/link.py checks the same for popref play and a grid).
function knownRules(named) {
  const table = rulesTable;
  if (!table || !table.sizes || !Object.hasOwn(table.sizes, named.rules)) return false;
  const [low, high] = table.repetition || [2, 2];
  const n = named.repetition;
  const repetition = n === null || n === undefined || (Number.isSafeInteger(n) && n >= low && n <= high);
  return repetition && (table.both_lines || ["popper"]).includes(named.both_lines || "popper");
}

// Into the next game: the same link with its game, secret and rules; the
// page starts again on it (a changed fragment reloads it), and a reload
// or a bookmark later opens that game.
function follow() {
  sessionStorage.setItem(FOLLOWING, "1");
  const pairs = new URLSearchParams(location.hash.slice(1));
  const named = state.sequel;
  pairs.set("g", next.game);
  pairs.set("k", next.key);
  pairs.set("r", named.rules);
  if (Number.isSafeInteger(named.repetition)) pairs.set("n", String(named.repetition));
  else pairs.delete("n");
  if (named.both_lines && named.both_lines !== "popper") pairs.set("b", named.both_lines);
  else pairs.delete("b");
  location.replace("#" + pairs.toString());
}

// The board's state shows the request taken: its move waits, or the game moved on.
function answered() {
  return state.remote_seq >= pending.seq && (state.remote !== null || state.ply !== pending.ply);
}

function resend() {
  if (pending && pending.payload && client && client.connected) client.publish(names.remote, pending.payload, { qos: 1 });
}

function myTurn() {
  return Boolean(
    state && state.invitation === "open" && !state.result && state.to_move === link.colour && !state.remote && !pending,
  );
}

async function tap(move) {
  if (!myTurn()) return;
  const ply = state.ply;
  pending = { move, ply, seq: nextSeq() };
  note = { key: "asking", values: { move: physical(move) } };
  render();
  pending.payload = await seal(link.key, link.game, pending.seq, "request", { ply, move });
  client.publish(names.remote, pending.payload, { qos: 1 });
}

// A move as the players read it: the grid's own columns (notation counts
// 5-in-a-Row's edge strips too).
function physical(move) {
  const pop = move.startsWith("p");
  const column = Number(pop ? move.slice(1) : move) - (state.offset || 0);
  return (pop ? "p" : "") + column;
}

// One button a column: drops above the board, pops below, each enabled
// when the engine's moves (the state's legal) have it.
function drawTaps(row, prefix, key) {
  const target = $(row);
  target.textContent = "";
  const width = state.grid.length ? state.grid[0].length : 0;
  const legal = new Set(state.legal || []);
  if (prefix && !(state.legal || []).some((move) => move.startsWith("p"))) return;
  for (let column = 1; column <= width; column++) {
    const move = prefix + (column + (state.offset || 0));
    const button = el("button", "tap", (prefix ? "\u25b2 " : "\u25bc ") + column);
    button.type = "button";
    button.dataset.move = move;
    button.title = t(key, { column });
    button.setAttribute("aria-label", button.title);
    button.disabled = !myTurn() || !legal.has(move);
    if (pending && pending.move === move) button.classList.add("pending");
    button.addEventListener("click", () => tap(move));
    target.appendChild(button);
  }
}

function render() {
  $("you").textContent = link ? t("you_play", { colour: colourName(link.colour) }) : "";
  if (!state) {
    $("turn").textContent = t("no_board");
    return;
  }
  drawTaps("drops", "", "tap_drop");
  drawBoard($("board"), state.grid, state.lights, state.colours, state.winning);
  drawTaps("pops", "p", "tap_pop");
  let turn = state.result ? yourResult(state.result) : myTurn() ? t("your_turn") : t("turn_" + state.to_move);
  // an ended invitation: the game's result stays when the link plays on
  const ended = state.invitation !== "open";
  if (ended && !(next && state.result)) turn = t("ended");
  $("turn").textContent = turn;
  $("next").hidden = !next;
  $("next-note").textContent = next ? t("sequel", { colour: colourName(link.colour) }) : "";
  $("fault").hidden = !state.fault;
  $("fault").textContent = state.fault ? atGrid(state.fault_text || state.fault) : "";
  // The board's sentence speaks to the people at the grid ("your friend's
  // move: ... make it on the grid"); on the friend's own turn the lines
  // above already say what it means for them.
  const friendsTurn = !state.result && state.to_move === link.colour;
  // once the invitation has ended, the grid's last word on its game is old news
  const status = friendsTurn || ended ? null : state.status_text || state.status;
  $("status").hidden = !status;
  $("status").textContent = status ? atGrid(status) : "";
  const waiting = state.remote && !ended;
  $("waiting").hidden = !waiting;
  $("waiting").textContent = waiting ? t("waiting_grid", { move: physical(state.remote) }) : "";
  $("moves").textContent = (state.moves || []).join(" ");
  showNote();
}

function atGrid(sentence) {
  return t("at_grid", { sentence: said(sentence) });
}

function showNote() {
  let text = "";
  if (note && note.key) text = t(note.key, note.values);
  else if (note && note.reason) text = t("not_taken", { reason: said(note.reason) });
  $("message").textContent = text;
}

// -- a share link: the game replayed from the fragment alone -----------------------------

// The positions and scores after each move, from the start position, each
// move and its mover (an upper-case mover: a Pop 10 pop that scored). The
// board made these from its engine; the page only lets the discs fall. Every
// field is checked before it is used, against what the board writes and the
// engine's bounds in the rules table (GET /api/rules: each rules' board
// sizes, the most moves of a share link): null when the link is not a game
// the board could have sent (damaged, cut short or made up), or no table came.
function replayShare(found, table) {
  const sizes = table && table.sizes && Object.hasOwn(table.sizes, found.r) ? table.sizes[found.r] : null;
  const size = /^([0-9]{1,2})x([0-9]{1,2})$/.exec(found.z || "");
  if (!sizes || !size || !Number.isSafeInteger(table.share_moves)) return null;
  const [width, height] = [Number(size[1]), Number(size[2])];
  const within = (value, [least, most]) => least <= value && value <= most;
  if (!within(width, sizes.width) || !within(height, sizes.height)) return null;
  if (!/^[0-9]{1,9}$/.test(found.n || "") || (found.e !== undefined && !["red", "yellow", "draw"].includes(found.e))) {
    return null;
  }
  if (typeof found.m !== "string" || typeof found.b !== "string") return null;
  const moves = found.m ? found.m.split(" ") : [];
  const by = found.b;
  if (moves.length > table.share_moves || by.length !== moves.length || !/^[ryRY]*$/.test(by)) return null;
  const start = found.i === undefined ? Array(height).fill(".".repeat(width)) : found.i.split("/");
  if (start.length !== height || !start.every((row) => row.length === width && /^[.RY]*$/.test(row))) return null;
  const columns = [];
  for (let c = 0; c < width; c++) {
    columns.push(start.map((row) => row[c]).reverse().filter((cell) => cell !== "."));
  }
  const picture = () => {
    const rows = [];
    for (let r = height - 1; r >= 0; r--) rows.push(columns.map((cells) => cells[r] || ".").join(""));
    return rows;
  };
  const positions = [picture()];
  if (positions[0].join("/") !== start.join("/")) return null; // a disc above a gap
  const scores = [[0, 0]];
  for (let i = 0; i < moves.length; i++) {
    const move = /^(p?)([1-9][0-9]?)$/.exec(moves[i]); // the notation: N drops, pN pops
    const cells = move && Number(move[2]) <= width ? columns[Number(move[2]) - 1] : null;
    if (!cells) return null;
    const mover = by[i];
    if (move[1]) {
      if (!cells.length) return null; // a pop from an empty column
      cells.shift();
    } else {
      if (cells.length >= height) return null; // a drop into a full column
      cells.push(mover.toUpperCase());
    }
    const [red, yellow] = scores[scores.length - 1];
    scores.push([red + (mover === "R" ? 1 : 0), yellow + (mover === "Y" ? 1 : 0)]);
    positions.push(picture());
  }
  const winning = [];
  for (const cell of found.x === undefined ? [] : found.x.split(",")) {
    const at = /^([0-9]{1,2})\.([0-9]{1,2})$/.exec(cell);
    if (!at || winning.length >= width * height || !within(Number(at[1]), [1, width]) || !within(Number(at[2]), [1, height])) {
      return null;
    }
    winning.push([Number(at[1]), Number(at[2])]);
  }
  return { rules: found.r, number: found.n, result: found.e || null, moves, positions, scores, winning, width, at: moves.length };
}

function drawShare() {
  if (!share) return;
  const end = share.at === share.moves.length;
  // the rules' own title (GET /api/strings' titles), as the live page names them
  const rules = titles[share.rules] || share.rules;
  $("share-title").textContent = t("replay_title", { number: share.number, rules });
  drawBoard($("share-board"), share.positions[share.at], null, null, end ? share.winning : null);
  $("share-result").textContent = end ? resultText(share.result) : "";
  const [red, yellow] = share.scores[share.at];
  $("share-scores").textContent = share.rules.endsWith("pop10") ? t("scores", { red, yellow }) : "";
  $("share-at").textContent = t("replay_at", { at: share.at, total: share.moves.length });
  $("share-moves").textContent = share.moves.join(" ");
  // Classic in the convention of the Connect Four test sets: one digit a drop
  const digits = share.rules === "classic" && share.width <= 9;
  $("digits-box").hidden = !digits;
  $("digits").textContent = digits ? share.moves.join("") : "";
}

function stepShare(to) {
  share.at = Math.max(0, Math.min(share.moves.length, to));
  drawShare();
}

// -- start ------------------------------------------------------------------------------

function translatePage() {
  translateMarked($("language"));
  document.title = t("remote_title");
  if (client) setLink(client.connected);
  if (link) render();
  drawShare();
  if ($("problem").dataset.key) $("problem").textContent = t($("problem").dataset.key, JSON.parse($("problem").dataset.values));
}

// The rules table (GET /api/rules, or the file `popref remote-page` wrote):
// the lamps board.js draws, and the bounds a share link is checked against.
// Null when neither answers.
async function loadRules() {
  for (const source of ["/api/rules", "rules.json"]) {
    try {
      const response = await fetch(source);
      if (!response.ok) continue;
      const table = await response.json();
      lamps = table.lamps;
      stepMs = table.step_ms;
      return table;
    } catch (_) {
      // the next source
    }
  }
  return null;
}

function problem(error) {
  const box = $("problem");
  box.dataset.key = error.key;
  box.dataset.values = JSON.stringify(error.values);
  box.textContent = t(error.key, error.values);
  box.hidden = false;
}

async function start() {
  await loadCatalog(localStorage.getItem(LANGUAGE_KEY) || "");
  translatePage();
  $("language").addEventListener("change", async (event) => {
    localStorage.setItem(LANGUAGE_KEY, event.target.value);
    await loadCatalog(event.target.value);
    translatePage();
  });
  // Another link pasted into this tab changes only the fragment: the page
  // would go on with the old game, so it starts again on the new one.
  window.addEventListener("hashchange", () => location.reload());
  const found = parseShare(location.hash);
  if (found) {
    $("link").hidden = true;
    share = replayShare(found, await loadRules());
    if (!share) {
      problem(new LinkError("bad_link"));
      return;
    }
    $("share").hidden = false;
    $("first").addEventListener("click", () => stepShare(0));
    $("back").addEventListener("click", () => stepShare(share.at - 1));
    $("forward").addEventListener("click", () => stepShare(share.at + 1));
    $("last").addEventListener("click", () => stepShare(Infinity));
    drawShare();
    return;
  }
  try {
    link = parseLink(location.hash);
  } catch (error) {
    if (!(error instanceof LinkError)) throw error;
    problem(error);
    return;
  }
  $("live").hidden = false;
  $("sequel").addEventListener("click", follow);
  render();
  rulesTable = await loadRules();
  connect();
}

document.addEventListener("DOMContentLoaded", start);
