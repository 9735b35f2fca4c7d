// Every sentence the page writes itself goes through t(key, values), so a
// catalog per language can fill STRINGS later (docs/web.md). The server's own
// sentences (status, fault) arrive already written.
"use strict";

const STRINGS = {
  en: {
    title: "popref",
    connecting: "connecting",
    live: "live",
    offline: "reconnecting",
    moves: "Moves",
    no_moves: "No moves yet.",
    controls: "Controls",
    not_paired: "This browser is not paired: press Pair, then the mode button on the board within 30 seconds.",
    paired: "This browser is paired: it may change the game.",
    pair: "Pair this browser",
    pairing: "Now press the mode button on the board (the lights blink).",
    pair_failed: "Nobody pressed the mode button in time; press Pair to try again.",
    pair_done: "Paired.",
    next_rules: "Rules of the next game",
    set_rules: "Choose",
    new_game: "New game",
    confirm_abandon: "Abandon the game in progress?",
    abandon: "Abandon it",
    keep: "Keep playing",
    archive: "Finished games",
    no_games: "No finished games yet.",
    download: "Download the record",
    game_line: "Game {number}: {rules}, {result}, {moves} moves, {finished}",
    replay_title: "Game {number}: {rules}",
    replay_at: "move {at} of {total}",
    turn_red: "Red's turn",
    turn_yellow: "Yellow's turn",
    scores: "Red {red} : {yellow} Yellow",
    result_red: "Red won",
    result_yellow: "Yellow won",
    result_draw: "draw",
    result_unknown: "unfinished",
    sent: "Sent.",
    error: "Error: {message}",
    rules_classic: "Classic",
    rules_popout: "Pop Out",
    rules_pop10: "Pop 10",
    rules_five: "5-in-a-Row",
    "rules_five+popout": "5-in-a-Row Pop Out",
    "rules_five+pop10": "5-in-a-Row Pop 10",
    rules_line: "{rules}, game {number}",
    colour_red: "Red",
    colour_yellow: "Yellow",
    opponent: "The computer plays {colour}.",
    opponent_level: "The computer plays {colour} at level {level}.",
    opponent_choice: "The computer plays",
    opponent_none: "nobody (two players)",
    set_opponent: "Choose",
    level_choice: "Its level",
    level_lowest: "{level}: a child can beat it",
    level_highest: "{level}: full strength",
    set_level: "Choose",
    ask_hint: "Hint for the player to move",
    from_next_game: "The rules, the opponent and its level apply from the next game (to this one before its first move).",
    computer_move: "The computer's move: {move}; make it on the grid.",
    hint: "Hint: {move}.",
  },
};

let language = "en";

function chooseLanguage(wanted) {
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (STRINGS[base]) {
      language = base;
      return base;
    }
  }
  language = "en";
  return language;
}

function t(key, values) {
  const table = STRINGS[language] || STRINGS.en;
  const text = key in table ? table[key] : (STRINGS.en[key] ?? key);
  return text.replace(/\{(\w+)\}/g, (_, name) => (values && name in values ? String(values[name]) : ""));
}
