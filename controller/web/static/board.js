// The board as the page draws it (the live page's and the remote page's):
// the grid, its discs, the winning line and the column lights.
"use strict";

// GET /api/rules: the lamp table the board's lights follow
// (hardware/looks.py): each lamp's colour and blink pattern
let lamps = {};
let stepMs = 125;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// One column light as the lamp table says: its colour ("disc": the disc
// colour the state gives it, white if none) and its blink pattern.
function drawLight(lamp, disc, column) {
  const look = lamps[lamp] || { colour: null, pattern: [1] };
  const colour = look.colour === "disc" ? disc || "white" : look.colour;
  const light = el("span", "light lamp-" + lamp);
  if (disc) light.classList.add("colour-" + disc);
  if (colour) light.classList.add("look-" + colour);
  if (look.pattern.length > 1) light.dataset.pattern = look.pattern.join("");
  light.dataset.column = String(column);
  light.dataset.lamp = lamp;
  light.setAttribute("role", "img");
  nameLight(light);
  return light;
}

function nameLight(light) {
  const name = t("light", { column: light.dataset.column, meaning: t("lamp_" + light.dataset.lamp) });
  light.title = name;
  light.setAttribute("aria-label", name);
}

function drawBoard(target, rows, lights, colours, winning) {
  target.textContent = "";
  const width = rows.length ? rows[0].length : 0;
  target.dataset.columns = String(width);
  target.classList.toggle("wide", width > 9);
  if (lights) {
    const bar = el("div", "lights");
    lights.forEach((lamp, i) => bar.appendChild(drawLight(lamp, colours && colours[i], i + 1)));
    target.appendChild(bar);
  }
  const win = new Set((winning || []).map(([c, r]) => c + ":" + r));
  const grid = el("div", "grid");
  rows.forEach((row, index) => {
    const line = el("div", "row");
    const rowNumber = rows.length - index;
    [...row].forEach((cell, c) => {
      const slot = el("span", "cell");
      if (cell === "R") slot.classList.add("red");
      else if (cell === "Y") slot.classList.add("yellow");
      else if (cell === "?") slot.classList.add("unknown");
      if (win.has(c + 1 + ":" + rowNumber)) slot.classList.add("winning");
      line.appendChild(slot);
    });
    grid.appendChild(line);
  });
  target.appendChild(grid);
  const numbers = el("div", "numbers");
  for (let c = 1; c <= width; c++) numbers.appendChild(el("span", "", String(c)));
  target.appendChild(numbers);
  blink();
}

// The lights blink on one clock, step by step through their patterns, as the
// board's do; not at all for a reader who asked for less motion (the shapes
// still say what each light asks for).
const still = window.matchMedia("(prefers-reduced-motion: reduce)");
let blinker = null;

function blink() {
  const blinking = document.querySelectorAll(".light[data-pattern]");
  if (!blinking.length || still.matches) {
    clearInterval(blinker);
    blinker = null;
    for (const light of blinking) light.classList.remove("dark");
    return;
  }
  const step = Math.floor(Date.now() / stepMs);
  for (const light of blinking) {
    const pattern = light.dataset.pattern;
    light.classList.toggle("dark", pattern[step % pattern.length] === "0");
  }
  if (!blinker) blinker = setInterval(blink, stepMs);
}
