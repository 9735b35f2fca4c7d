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
let titles = {};
let pluralIndex = pluralChooser("en", { one: 0, other: 1 });

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
  titles = catalog.titles;
  pluralIndex = pluralChooser(language, catalog.plural);
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

// The form of a sentence with a count that gettext would pick: the browser's
// Intl.PluralRules names the count's CLDR category, and the catalog says
// which of the language's forms each category takes (GET /api/strings'
// "plural", made with the catalogs: controller/i18n/catalogs.py).
function pluralChooser(lang, categories) {
  const rules = new Intl.PluralRules(lang);
  return (n) => {
    const category = rules.select(n);
    return category in categories ? categories[category] : categories.other;
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
