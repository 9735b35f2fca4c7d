// Every sentence the page writes itself goes through t(key, values) (or
// tn(key, n, values) for one with a count), over the catalog the server sends
// for the reader's language (GET /api/strings: the same gettext catalogs as
// the referee's sentences, docs/languages.md). The server's own sentences
// (status, fault) arrive in the language the page asks for with ?lang=.
"use strict";

const LANGUAGE_KEY = "popref-language";
let language = "en";
let languages = { en: "English" };
let strings = {};
let plurals = {};
let pluralIndex = (n) => (n !== 1 ? 1 : 0);

// The page's choice (the language menu, remembered), else none: the server
// then follows the browser's Accept-Language.
function chosenLanguage() {
  return localStorage.getItem(LANGUAGE_KEY) || "";
}

async function loadStrings(wanted) {
  const query = wanted ? "?lang=" + encodeURIComponent(wanted) : "";
  const response = await fetch("/api/strings" + query);
  if (!response.ok) return false;
  useCatalog(await response.json());
  return true;
}

// A catalog as GET /api/strings answers it (the remote page may read it from a file).
function useCatalog(catalog) {
  language = catalog.language;
  languages = catalog.languages;
  strings = catalog.strings;
  plurals = catalog.plurals;
  pluralIndex = pluralRule(catalog.plural);
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (_, name) => (values && name in values ? String(values[name]) : ""));
}

function t(key, values) {
  return fill(key in strings ? strings[key] : key, values);
}

function tn(key, n, values) {
  const forms = plurals[key] || [key];
  const form = forms[Math.min(pluralIndex(n), forms.length - 1)] || forms[0];
  return fill(form, Object.assign({ n }, values || {}));
}

// gettext's Plural-Forms expression ("nplurals=3; plural=(n == 1 ? 0 : ...);"),
// read by a small parser (the page's policy allows no eval): C's ?:, ||, &&,
// comparisons, + - * / % and parentheses over n and whole numbers.
function pluralRule(header) {
  const match = /plural\s*=\s*([^;]+)/.exec(header || "");
  const tokens = match ? match[1].match(/\d+|n|\|\||&&|[=!<>]=|[<>?:()+\-*/%!]/g) || [] : [];
  return (n) => {
    let at = 0;
    const peek = () => tokens[at];
    const next = () => tokens[at++];
    const binary = (operators, operand) => () => {
      let value = operand();
      while (operators.includes(peek())) {
        const op = next();
        const right = operand();
        value = {
          "||": () => (value || right ? 1 : 0),
          "&&": () => (value && right ? 1 : 0),
          "==": () => (value === right ? 1 : 0),
          "!=": () => (value !== right ? 1 : 0),
          "<": () => (value < right ? 1 : 0),
          ">": () => (value > right ? 1 : 0),
          "<=": () => (value <= right ? 1 : 0),
          ">=": () => (value >= right ? 1 : 0),
          "+": () => value + right,
          "-": () => value - right,
          "*": () => value * right,
          "/": () => Math.trunc(value / right),
          "%": () => value % right,
        }[op]();
      }
      return value;
    };
    const primary = () => {
      const token = next();
      if (token === "(") {
        const value = ternary();
        next();
        return value;
      }
      if (token === "!") return primary() ? 0 : 1;
      return token === "n" ? n : Number(token);
    };
    const product = binary(["*", "/", "%"], primary);
    const sum = binary(["+", "-"], product);
    const order = binary(["<", ">", "<=", ">="], sum);
    const equality = binary(["==", "!="], order);
    const and = binary(["&&"], equality);
    const or = binary(["||"], and);
    function ternary() {
      const test = or();
      if (peek() !== "?") return test;
      next();
      const yes = ternary();
      next();
      const no = ternary();
      return test ? yes : no;
    }
    return tokens.length ? ternary() : n !== 1 ? 1 : 0;
  };
}

// The page's marked nodes (data-t, data-t-label) in its language, and the
// language menu with every language in its own name.
function translateMarked(picker) {
  document.documentElement.lang = language;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) {
    node.setAttribute("aria-label", t(node.dataset.tLabel));
  }
  picker.textContent = "";
  for (const [code, name] of Object.entries(languages)) {
    const option = document.createElement("option");
    option.textContent = name;
    option.value = code;
    option.lang = code;
    picker.appendChild(option);
  }
  picker.hidden = false;
  picker.value = language;
}
