// The remote seat's protocol, version 1 (docs/remote.md), in the browser: the
// invitation's fragment, the topics, and HMAC-SHA256 signatures, as the
// global `protocol`. The HMAC is the vendored @noble/hashes (audited), as ES
// modules: WebCrypto's subtle API exists only in secure contexts (https,
// localhost), and the Pi's page is plain http. A broker's static server
// (Mosquitto's http_dir) sends no Content-Type, so a browser will not run
// modules from it: there the page is https (docs/remote.md), and WebCrypto
// signs instead.
"use strict";

const protocol = (() => {
const VERSION = 1;
const DOMAIN = "popref/" + VERSION;
const KINDS = { board: ["state", "move", "reply", "presence"], remote: ["request", "hello", "here"] };
const KEYS = "body,from,game,kind,seq,sig,v";
const BOARD_LIMIT = 65536; // bytes: the largest board message a client takes
const SEQ_LIMIT = 2 ** 53 - 1;
const encoder = new TextEncoder();

// A link that is not an invitation: key is the page's sentence saying so.
class LinkError extends Error {
  constructor(key, values) {
    super(key);
    this.key = key;
    this.values = values || {};
  }
}

// The bytes of base64url text without padding, exactly size of them, or null.
function fromBase64url(text, size) {
  if (typeof text !== "string" || text.length !== Math.ceil((size * 8) / 6) || !/^[A-Za-z0-9_-]+$/.test(text)) {
    return null;
  }
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return bytes.length === size ? bytes : null;
}

// The fragment's pairs, each key once; null when a key comes twice.
function pairs(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const found = {};
  for (const [name, value] of params) {
    if (name in found) return null;
    found[name] = value;
  }
  return found;
}

// What an invitation link's fragment carries (docs/remote.md, "The link");
// LinkError when it is not one. The secret is never shown.
function parseLink(hash) {
  const found = pairs(hash);
  if (!found) throw new LinkError("bad_link");
  if (found.v !== String(VERSION)) throw new LinkError("link_version", { version: (found.v || "?").slice(0, 8), ours: VERSION });
  const key = fromBase64url(found.k, 32);
  const web = found.w || "";
  if (!fromBase64url(found.g, 16) || !key || !["red", "yellow"].includes(found.c) || !/^wss?:\/\/[^\s#?]+$/.test(web)) {
    throw new LinkError("bad_link");
  }
  return { game: found.g, key, colour: found.c, rules: found.r || "classic", web, user: found.u || "", password: found.p || "" };
}

// A finished game's share link (docs/remote.md, "Share links"), or null when
// the fragment is not one.
function parseShare(hash) {
  const found = pairs(hash);
  if (!found || found.share !== String(VERSION)) return null;
  return found;
}

function topics(game) {
  const base = DOMAIN + "/" + game;
  return { state: base + "/state", board: base + "/board", remote: base + "/remote" };
}

// HMAC-SHA256 of bytes under key, as lower-case hex: the vendored code
// where it loads, else WebCrypto (a secure context).
let vendored = null;

async function hmacBytes(key, bytes) {
  if (vendored === null) {
    try {
      const [{ hmac }, { sha256 }] = await Promise.all([
        import("./vendor/noble-hashes/hmac.js"),
        import("./vendor/noble-hashes/sha2.js"),
      ]);
      vendored = (k, b) => hmac(sha256, k, b);
    } catch (_) {
      vendored = false;
    }
  }
  if (vendored) return vendored(key, bytes);
  const secret = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", secret, bytes));
}

async function hmacHex(key, bytes) {
  return Array.from(await hmacBytes(key, bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// The game id and secret of the game that follows a finished one on the same
// link (docs/remote.md, "The next game on the same link"), as base64url.
async function sequel(key) {
  const game = await hmacBytes(key, encoder.encode(DOMAIN + "\nsequel\ngame"));
  const next = await hmacBytes(key, encoder.encode(DOMAIN + "\nsequel\nkey"));
  return { game: toBase64url(game.slice(0, 16)), key: toBase64url(next) };
}

// HMAC-SHA256 of the signed text, in lower-case hex.
function signature(key, game, from, kind, seq, body) {
  const text = [DOMAIN, game, from, kind, String(seq), body].join("\n");
  return hmacHex(key, encoder.encode(text));
}

// A remote message as the broker carries it, signed.
async function seal(key, game, seq, kind, value) {
  const body = JSON.stringify(value);
  const sig = await signature(key, game, "remote", kind, seq, body);
  return JSON.stringify({ v: VERSION, game, from: "remote", seq, kind, body, sig });
}

// Which implementation signs here: "vendored" or "webcrypto".
async function signer() {
  await hmacHex(new Uint8Array(32), new Uint8Array(0));
  return vendored ? "vendored" : "webcrypto";
}

// Equal strings, compared in time that does not depend on where they differ.
function same(a, b) {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

// The board's message in payload (bytes) if it is a version-1 message of
// game, signed with key; else null. Nothing is trusted before the signature checks.
async function unseal(key, game, payload) {
  if (payload.length > BOARD_LIMIT) return null;
  let data;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch (_) {
    return null;
  }
  if (!data || typeof data !== "object" || Array.isArray(data) || Object.keys(data).sort().join(",") !== KEYS) return null;
  const { v, seq, kind, body, sig } = data;
  if (v !== VERSION || data.game !== game || data.from !== "board") return null;
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > SEQ_LIMIT || !KINDS.board.includes(kind)) return null;
  if (typeof body !== "string" || typeof sig !== "string" || !/^[0-9a-f]{64}$/.test(sig)) return null;
  if (!same(await signature(key, game, "board", kind, seq, body), sig)) return null;
  let value;
  try {
    value = JSON.parse(body);
  } catch (_) {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  return { seq, kind, body: value };
}

return { VERSION, BOARD_LIMIT, LinkError, fromBase64url, parseLink, parseShare, topics, signature, seal, sequel, signer, unseal };
})();
