// The live board: follows /api/events, sends controls with the paired
// browser's token in the Authorization header (never in a URL).
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "popref-token";
let state = null;
let games = [];
let replayData = null;
let replayAt = 0;
// GET /api/rules: the rules there are (the lamp table is board.js's)
let rulesNames = [];

function token() {
  return localStorage.getItem(TOKEN_KEY);
}

function headers(extra) {
  const result = Object.assign({}, extra || {});
  const held = token();
  if (held) result.Authorization = "Bearer " + held;
  return result;
}

// the server's sentences (state, errors) in the page's language
function inLanguage(path) {
  return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(language);
}

async function call(method, path, body) {
  const options = { method, headers: headers(body ? { "Content-Type": "application/json" } : {}) };
  if (body) options.body = JSON.stringify(body);
  const response = await fetch(inLanguage(path), options);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  return { status: response.status, data };
}

function rulesTitle(name) {
  return titles[name] || name;
}

function resultText(result) {
  if (result === "red" || result === "yellow" || result === "draw") return t("result_" + result);
  return t("result_unknown");
}

function render() {
  if (!state || !state.board) return;
  document.body.dataset.rules = state.rules;
  $("rules").textContent = t("rules_line", { rules: rulesTitle(state.rules), number: state.game_number });
  const next = nextGame();
  $("next").hidden = !next;
  // linked grids: the other grid asks to take the last move back (docs/remote.md)
  $("decline").hidden = !(state.takeback && state.takeback.heard);
  $("next").textContent = next;
  drawBoard($("board"), state.grid, state.lights, state.colours, state.winning);
  $("status").textContent = state.status;
  $("fault").hidden = !state.fault;
  $("fault").textContent = state.fault || "";
  // once a game is over the turn light shows the winner, not a turn
  const turnText = state.result ? resultText(state.result) : state.turn ? t("turn_" + state.turn) : "";
  $("turn").textContent = turnText;
  $("turn").className = "turn " + (state.turn || "");
  const pop10 = state.rules.endsWith("pop10");
  $("scores").hidden = !pop10;
  $("scores").textContent = t("scores", state.scores);
  $("moves").textContent = state.moves.length ? state.moves.join(" ") : t("no_moves");
  // the computer opponent's fields, once the daemon has one (absent until then)
  const extra = [];
  if (state.opponent) {
    const colour = t("colour_" + state.opponent);
    extra.push(state.level ? t("opponent_level", { colour, level: state.level }) : t("opponent", { colour }));
  }
  // the board's status says the computer's move, unless a fault's repair has it
  if (state.computer && state.fault) extra.push(t("computer_move", { move: state.computer }));
  // marked only where the board says false (a board without the field says nothing); the status says why
  if (state.hint) extra.push(t(state.hint_proven === false ? "hint_unproven" : "hint", { move: state.hint }));
  $("opponent").hidden = extra.length === 0;
  $("opponent").textContent = extra.join(" ");
  document.body.classList.toggle("pairing", Boolean(state.pairing));
  showLinked();
  showFriend();
  followChoice("rules-choice", state.next_rules);
  followChoice("opponent-choice", state.next_opponent || "none");
  followChoice("level-choice", String(state.next_level || 5));
}

// The next game's rules and opponent, when they are not this game's.
function nextGame() {
  const opponent = state.next_opponent || null;
  const same =
    state.next_rules === state.rules &&
    opponent === (state.opponent || null) &&
    (!opponent || state.next_level === state.level);
  if (same || !state.next_rules) return "";
  const rules = rulesTitle(state.next_rules);
  if (!opponent) return t("next_game", { rules });
  return t("next_game_computer", { rules, colour: t("colour_" + opponent), level: state.next_level });
}

// A choice shows what the board will do next, except while the person's own
// choice is on its way to the board.
function followChoice(id, value) {
  const choice = $(id);
  if (!choice.dataset.sending) choice.value = value;
}

// Linked grids (docs/remote.md): the other side is a grid, its link up or
// down; a grid that joined another's game plays by that grid's rules and
// its own person's colour, so the next game's menus mean nothing there.
function showLinked() {
  $("linked").hidden = !state.linked;
  $("linked").textContent = state.linked ? t(state.link === "up" ? "linked_up" : "linked_down") : "";
  const joined = state.linked === "joined";
  $("joined").hidden = !joined;
  $("leave").hidden = !joined;
  for (const id of ["rules-choice", "opponent-choice", "level-choice"]) $(id).closest("label").hidden = joined;
  $("from-next-game").hidden = joined;
  showBadge();
}

// -- the event stream (fetch, so a token can go in a header) --------------------------

let following = false; // the event stream is open

function setLink(on) {
  following = on;
  showBadge();
}

// The badge: whether what the page shows is live; while the link to the
// other side of a remote game is down it says that instead, as the fault
// does, so it never reads as a connection that is up.
function showBadge() {
  const cut = following && state && state.remote_colour && state.link === "down";
  $("link").textContent = t(cut ? "link_down" : following ? "live" : "offline");
  $("link").className = "link " + (following && !cut ? "on" : "off");
}

let stream = null;
let restarting = false; // the stream was closed for a new language: reconnect at once
// A stream that has said nothing for this long is dead though still open (a
// phone's network dropped it without a word, e.g. while the phone slept; the
// server says something every 15 s): the page says it is offline and
// connects again, instead of showing an old board as live.
const SILENT_MS = 40000;
let heard = 0;

setInterval(() => {
  // a stream, or an attempt at one that nothing answers
  if (stream && Date.now() - heard > SILENT_MS) stream.abort();
}, 5000);

async function follow() {
  for (;;) {
    try {
      stream = new AbortController();
      heard = Date.now();
      const response = await fetch(inLanguage("/api/events"), { headers: headers(), signal: stream.signal });
      if (response.ok && response.body) {
        setLink(true);
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          heard = Date.now();
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block
              .split("\n")
              .filter((line) => line.startsWith("data: "))
              .map((line) => line.slice(6))
              .join("\n");
            if (data) onState(JSON.parse(data));
          }
        }
      }
    } catch (_) {
      // the daemon restarted or the network dropped: try again below
    }
    if (restarting) {
      restarting = false;
      continue;
    }
    setLink(false);
    await new Promise((done) => setTimeout(done, 1000));
  }
}

function onState(next) {
  const before = state;
  state = next;
  // a page that may watch only once paired ([web] watch = false) reads the
  // rules and the lamp table as soon as it may
  if (!rulesNames.length) loadRules();
  render();
  // a game ended (or was abandoned for a new one): the archive has grown
  if (before && (before.game_number !== next.game_number || (!before.result && next.result))) {
    loadGames();
  }
  if (before && message && message.answer && movedOn(before, next, message.answer)) {
    message = null;
    showMessage();
  }
  // each game of a grid that invites has a link of its own: the last one's is spent
  const spent = invitation && next.remote_colour && next.game_number !== invitation.game;
  if (spent && !invitationLoading) loadInvitation();
}

// Whether the game has moved on past what a control's answer said: a move
// was made, the game ended, or another game began (which New game's own
// answer is about: it stays until that game's first move).
function movedOn(before, next, path) {
  if (before.game_number !== next.game_number) return path !== "/api/new";
  // a move taken back by both grids: the question is answered
  if (next.epoch !== before.epoch) return true;
  // the link given here was spent at once (its game was over): the status says so
  const unlinked = !next.linked && (before.linked === "joined" || next.status !== before.status);
  if (path === "/api/remote/join" && unlinked) return true;
  return next.moves.length > before.moves.length || (!before.result && Boolean(next.result));
}

// -- controls --------------------------------------------------------------------------

// The message line keeps what it says as a page sentence's key and values,
// or as the server's sentences in every language (said_in, error_in), so a
// new language shows it again in that one.
let message = null;

function say(key, values) {
  message = { key, values };
  showMessage();
}

// A sentence with plural forms, chosen by n.
function sayPlural(key, n, values) {
  message = { key, values, n };
  showMessage();
}

function sayServer(texts) {
  message = { texts };
  showMessage();
}

// The server's error, in every language when it sent them.
function problem(data, status) {
  return { message: (data && (data.error_in || data.error)) || String(status) };
}

function translated(value) {
  return value && typeof value === "object" ? value[language] || value.en : value;
}

function showMessage() {
  let text = "";
  if (message && message.texts) text = translated(message.texts);
  else if (message && message.key) {
    const values = {};
    for (const [name, value] of Object.entries(message.values || {})) values[name] = translated(value);
    text = message.n === undefined ? t(message.key, values) : tn(message.key, message.n, values);
  }
  $("message").textContent = text;
}

async function refreshSession() {
  const { data } = await call("GET", "/api/session");
  const paired = Boolean(data && data.paired);
  if (!paired && token()) localStorage.removeItem(TOKEN_KEY);
  document.body.classList.toggle("paired", paired);
  $("pair-text").textContent = t(paired ? "paired" : "not_paired");
  $("pair").hidden = paired;
  $("control-box").hidden = !paired;
  if (paired) loadInvitation();
}

// The request's code: the columns the board lights for it, drawn as its lights.
function showCode(code) {
  const box = $("pair-code");
  box.textContent = "";
  box.hidden = !code;
  if (!code) return;
  const bar = el("div", "lights");
  const columns = state && state.lights ? state.lights.length : Math.max(...code);
  for (let c = 1; c <= columns; c++) {
    const light = el("span", "light lamp-" + (code.includes(c) ? "chosen" : "off"));
    light.dataset.column = String(c);
    bar.appendChild(light);
  }
  box.appendChild(bar);
}

async function pair() {
  const { status, data } = await call("POST", "/api/pair", {});
  if (status !== 202) {
    say("error", problem(data, status));
    return;
  }
  showCode(data.code);
  sayPlural("pairing", data.look, { columns: data.code.join(", ") });
  for (;;) {
    await new Promise((done) => setTimeout(done, 500));
    const claim = await call("POST", "/api/pair/claim", { request: data.request });
    if (claim.status === 202) continue;
    if (claim.status === 200 && claim.data && claim.data.token) {
      localStorage.setItem(TOKEN_KEY, claim.data.token);
      say("pair_done");
    } else {
      if (claim.data && claim.data.error) {
        sayServer(claim.data.error_in || { [language]: claim.data.error });
      } else {
        say("pair_failed");
      }
    }
    break;
  }
  showCode(null);
  await refreshSession();
}

async function control(path, body, answer) {
  const { status, data } = answer || (await call("POST", path, body));
  if (status === 403) {
    localStorage.removeItem(TOKEN_KEY);
    await refreshSession();
    if (data && data.error) sayServer(data.error_in || { [language]: data.error });
    else say("not_paired");
    return status;
  }
  if (status === 409 && data && data.confirm) {
    message = null;
    showMessage();
    $("confirm").hidden = false;
    return status;
  }
  if (status === 202 && data && data.said && data.said.length) {
    // the referee's own sentences, e.g. why there is no hint now
    const texts = {};
    for (const [code, said] of Object.entries(data.said_in || { [language]: data.said })) {
      texts[code] = said.join(" ");
    }
    sayServer(texts);
  } else if (status === 202) {
    say("sent");
  } else {
    say("error", problem(data, status));
  }
  // said until the game moves on (onState): "The game was abandoned" must
  // not stand beside the next game's win
  message.answer = path || "control";
  return status;
}

// -- a friend anywhere (docs/remote.md) ------------------------------------------------

let invitation = null; // the invite answer: { colour, link, qr }
let broker = false; // whether the board has a broker to invite through (GET /api/remote)

// The colour a friend is invited to play: theirs if one plays, else the
// computer's, else Yellow (the people at the grid start).
function friendColour() {
  return state.remote_colour || state.opponent || "yellow";
}

function showFriend() {
  const joined = state.linked === "joined";
  $("invite-box").hidden = !broker || joined;
  // a grid that invites a friend joins no other grid's game (the board says why)
  $("join-box").hidden = Boolean(state.remote_colour) && !joined;
  // while a friend holds the seat the button shows their link again: a new
  // one would end the game for the friend holding the old
  const held = Boolean(state.remote_colour);
  $("invite").textContent = held ? t("show_invitation") : t("invite", { colour: t("colour_" + friendColour()) });
  $("friend").hidden = !state.remote_colour;
  // until its holder opens the link, the owner knows it has not reached them;
  // then whether their page is open (a phone asleep closes it for a while)
  const friend =
    state.friend_opened === false ? "friend_invited" : state.friend_here === false ? "friend_away" : "friend_plays";
  $("friend").textContent = state.remote_colour ? t(friend, { colour: t("colour_" + state.remote_colour) }) : "";
  if (!state.remote_colour) invitation = null;
  $("invitation").hidden = !invitation;
  if (!invitation) return;
  const sentence = invitation.same_link ? "invite_same" : "invite_link";
  $("invite-text").textContent = t(sentence, { colour: t("colour_" + invitation.colour) });
  if ($("invite-link").value !== invitation.link) {
    $("invite-link").value = invitation.link;
    // the QR code is the server's own SVG (segno): parsed as SVG, never as HTML
    const svg = new DOMParser().parseFromString(invitation.qr, "image/svg+xml").documentElement;
    $("qr").replaceChildren(document.importNode(svg, true));
  }
}

async function invite() {
  if (state.remote_colour) {
    await loadInvitation();
    return;
  }
  const colour = friendColour();
  const { status, data } = await call("POST", "/api/remote/invite", { colour });
  await control(null, null, { status, data });
  if (status === 202) {
    invitation = { ...data, game: state.game_number };
    showFriend();
  }
}

// A page opened again while a friend holds a seat shows the link once more,
// and a new game's link replaces the last one's.
let invitationLoading = false;
async function loadInvitation() {
  invitationLoading = true;
  try {
    const { status, data } = await call("GET", "/api/remote");
    if (status !== 200) return;
    broker = Boolean(data.broker);
    invitation = data.link ? { ...data, game: state ? state.game_number : null } : null;
    if (state) showFriend();
  } finally {
    invitationLoading = false;
  }
}

// Another grid's link, given here: this grid plays that grid's game
// (docs/remote.md, "Linked grids"); the board says whether it may now.
async function joinLink() {
  const link = $("join-link").value.trim();
  // a second tap once it joined: what the first one said stays
  if (!link && state && state.linked === "joined") return;
  $("join").disabled = true; // one tap, one join, while the board answers
  const asked = state;
  try {
    const status = await control("/api/remote/join", { link });
    if (status === 202) $("join-link").value = "";
    // spent before its answer came (an old link): the status says why
    if (status === 202 && state !== asked && movedOn(asked, state, "/api/remote/join")) {
      message = null;
      showMessage();
    }
  } finally {
    $("join").disabled = false;
  }
}

async function copyLink() {
  const field = $("invite-link");
  try {
    await navigator.clipboard.writeText(field.value);
  } catch (_) {
    // plain http (the Pi's page) has no clipboard API: the selection is copied
    field.select();
    document.execCommand("copy");
  }
  say("copied");
}

// -- the archive -----------------------------------------------------------------------

async function loadGames() {
  const { status, data } = await call("GET", "/api/games");
  if (status !== 200) return;
  games = data;
  const list = $("games");
  list.textContent = "";
  if (!games.length) list.appendChild(el("li", "empty", t("no_games")));
  for (const game of games) {
    const item = el("li");
    const button = el(
      "button",
      "game",
      t("game_line", {
        number: game.number,
        rules: rulesTitle(game.rules),
        result: resultText(game.result),
        moves: game.moves === null || game.moves === undefined ? "?" : tn("move_count", game.moves),
        finished: when(game.finished),
      }),
    );
    button.type = "button";
    button.dataset.number = String(game.number);
    button.addEventListener("click", () => openReplay(game.number));
    item.appendChild(button);
    list.appendChild(item);
  }
}

// A date and time as the page's language writes them (not the browser's).
function when(iso) {
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

async function openReplay(number) {
  const { status, data } = await call("GET", "/api/games/" + number + "/replay");
  if (status !== 200) {
    say("error", problem(data, status));
    return;
  }
  replayData = data;
  replayAt = data.moves.length;
  $("share-link").href = data.share;
  $("replay").hidden = false;
  drawReplay();
}

// The position after replayAt moves; at the end, the result and the winning line.
function drawReplay() {
  const data = replayData;
  if (!data) return;
  const end = replayAt === data.moves.length;
  $("replay-title").textContent = t("replay_title", { number: data.number, rules: rulesTitle(data.rules) });
  drawBoard($("replay-board"), data.positions[replayAt], null, null, end ? data.winning : null);
  $("replay-result").textContent = end ? resultText(data.result) : "";
  const [red, yellow] = data.scores[replayAt];
  $("replay-scores").textContent = data.rules.endsWith("pop10") ? t("scores", { red, yellow }) : "";
  $("replay-at").textContent = t("replay_at", { at: replayAt, total: data.moves.length });
  const moves = $("replay-moves");
  moves.textContent = "";
  data.moves.forEach((move, i) => {
    const token = el("span", i < replayAt ? "played" : "later", move);
    moves.appendChild(token);
    moves.appendChild(document.createTextNode(" "));
  });
}

function stepReplay(to) {
  if (!replayData) return;
  replayAt = Math.max(0, Math.min(replayData.moves.length, to));
  drawReplay();
}

async function download() {
  if (!replayData) return;
  const response = await fetch("/api/games/" + replayData.number, { headers: headers() });
  const blob = await response.blob();
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = "popref-game-" + replayData.number + ".txt";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// -- start -----------------------------------------------------------------------------

function translatePage() {
  translateMarked($("language"));
  document.title = t("title");
  fillRules();
  fillChoice($("opponent-choice"), [
    ["none", t("opponent_none")],
    ["red", t("colour_red")],
    ["yellow", t("colour_yellow")],
  ]);
  const levels = [];
  for (let level = 1; level <= 10; level++) {
    const key = level === 1 ? "level_lowest" : level === 10 ? "level_highest" : "";
    levels.push([String(level), key ? t(key, { level }) : String(level)]);
  }
  fillChoice($("level-choice"), levels);
  render();
  drawReplay();
  showMessage();
}

async function loadRules() {
  const { status, data } = await call("GET", "/api/rules");
  if (status !== 200) return;
  rulesNames = data.rules;
  lamps = data.lamps;
  stepMs = data.step_ms;
  fillRules();
  render();
  drawReplay();
}

function fillRules() {
  fillChoice(
    $("rules-choice"),
    rulesNames.map((name) => [name, rulesTitle(name)]),
  );
}

function fillChoice(choice, options) {
  const chosen = choice.value;
  choice.textContent = "";
  for (const [value, label] of options) {
    const option = el("option", "", label);
    option.value = value;
    choice.appendChild(option);
  }
  if (chosen) choice.value = chosen;
}

// A menu applies its choice as soon as it changes.
function applyOnChange(id, path, body) {
  $(id).addEventListener("change", async () => {
    $(id).dataset.sending = "1";
    try {
      await control(path, body($(id).value));
    } finally {
      delete $(id).dataset.sending;
      render();
    }
  });
}

async function switchLanguage(code) {
  localStorage.setItem(LANGUAGE_KEY, code);
  if (!(await loadStrings(code))) return;
  translatePage();
  loadGames();
  refreshSession();
  // the server's sentences too: the stream starts again in the new language
  const { status, data } = await call("GET", "/api/state");
  if (status === 200) onState(data);
  if (stream) {
    restarting = true;
    stream.abort();
  }
}

async function start() {
  try {
    await loadStrings(chosenLanguage());
  } catch (_) {
    // the page's English (in index.html) stays until the daemon answers
  }
  translatePage();
  $("language").addEventListener("change", (event) => switchLanguage(event.target.value));
  $("pair").addEventListener("click", pair);
  $("new-game").addEventListener("click", () => control("/api/new", {}));
  applyOnChange("rules-choice", "/api/rules", (rules) => ({ rules }));
  applyOnChange("opponent-choice", "/api/opponent", (plays) => ({ plays }));
  applyOnChange("level-choice", "/api/level", (level) => ({ level: Number(level) }));
  $("hint").addEventListener("click", () => control("/api/hint", {}));
  $("takeback").addEventListener("click", () => control("/api/takeback", {}));
  $("decline").addEventListener("click", () => control("/api/takeback/decline", {}));
  $("confirm-yes").addEventListener("click", async () => {
    $("confirm").hidden = true;
    await control("/api/new", { confirm: true });
  });
  $("confirm-no").addEventListener("click", () => {
    $("confirm").hidden = true;
  });
  $("first").addEventListener("click", () => stepReplay(0));
  $("back").addEventListener("click", () => stepReplay(replayAt - 1));
  $("forward").addEventListener("click", () => stepReplay(replayAt + 1));
  $("last").addEventListener("click", () => stepReplay(Infinity));
  $("download").addEventListener("click", download);
  $("invite").addEventListener("click", invite);
  $("copy").addEventListener("click", copyLink);
  $("revoke").addEventListener("click", () => control("/api/remote/revoke", {}));
  $("join").addEventListener("click", joinLink);
  $("leave").addEventListener("click", () => control("/api/remote/leave", {}));
  still.addEventListener("change", blink);
  refreshSession();
  loadRules();
  loadGames();
  follow();
}

document.addEventListener("DOMContentLoaded", start);
