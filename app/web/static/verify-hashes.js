// Bytes, WebCrypto and the audit log's hashes (FAIR-10, FAIR-11) for the browser verifier.
// RFC 8785 is written here by hand: an entry holds only integers, strings, booleans, null,
// arrays and objects (FAIR-10), and for those the scheme is a key sort and JSON.stringify.

const HASH_FIELDS = ["prev_hash", "content_hash", "hash"];
// FAIR-17/18: a hidden entry's key and what opens its commitments, outside the hash.
const NOT_HASHED = new Set([...HASH_FIELDS, "entry_key", "proof", "disclosures"]);

/** What a building block refuses: a value outside FAIR-10, a bad key or proof, a bad die. */
export class VerifierError extends Error {
  constructor(message) {
    super(message);
    this.name = "VerifierError";
  }
}

// --- bytes ------------------------------------------------------------------------------

const encoder = new TextEncoder();

export function utf8(text) {
  return encoder.encode(text);
}

export function toHex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Bytes from hex, as Python's bytes.fromhex reads it (either case, spaces between bytes). */
export function fromHex(text) {
  if (typeof text !== "string" || !/^[ \t\n\r\f\v]*(?:[0-9a-fA-F]{2}[ \t\n\r\f\v]*)*$/.test(text)) {
    throw new VerifierError(`not hex: ${JSON.stringify(text)}`);
  }
  const digits = text.replace(/[ \t\n\r\f\v]/g, "");
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i += 1) {
    bytes[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

export function concat(...parts) {
  const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

export function subtle() {
  const api = globalThis.crypto && globalThis.crypto.subtle;
  if (!api) {
    throw new Error(
      "WebCrypto (crypto.subtle) is unavailable: open the page over https or from localhost",
    );
  }
  return api;
}

export async function sha256(bytes) {
  return new Uint8Array(await subtle().digest("SHA-256", bytes));
}

export async function sha256Hex(bytes) {
  return toHex(await sha256(bytes));
}

const hmacKeys = new Map(); // hex → CryptoKey: an epoch's seed keys every entry of the epoch

async function hmacKey(keyBytes) {
  const id = toHex(keyBytes);
  let key = hmacKeys.get(id);
  if (key === undefined) {
    key = await subtle().importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    if (hmacKeys.size > 256) hmacKeys.clear();
    hmacKeys.set(id, key);
  }
  return key;
}

export async function hmacSha256(keyBytes, messageBytes) {
  return new Uint8Array(await subtle().sign("HMAC", await hmacKey(keyBytes), messageBytes));
}

// --- FAIR-10/11: canonical JSON and the hashes -------------------------------------------

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function quote(text) {
  if (LONE_SURROGATE.test(text)) {
    throw new VerifierError("a string holds a lone surrogate, which RFC 8785 refuses");
  }
  // JSON.stringify escapes exactly what RFC 8785 escapes: `"`, `\` and control characters
  // (\b \t \n \f \r by name, the others as lowercase \u00xx); RFC 8785 is defined on it.
  return JSON.stringify(text);
}

/**
 * RFC 8785 (JCS) text of a value holding what FAIR-10 allows: integers, strings, booleans,
 * null, arrays and objects. A non-integer or unsafe number is refused, never rounded.
 */
export function canonicalJson(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return quote(value);
    case "number":
      if (!Number.isInteger(value)) {
        throw new VerifierError(
          `${value} is not an integer: a log entry holds no floating-point number (FAIR-10)`,
        );
      }
      if (!Number.isSafeInteger(value)) {
        const exact = BigInt(value); // the number read, digit for digit (String() rounds)
        throw new VerifierError(`${exact} is beyond ±(2^53 − 1), outside RFC 8785's integers`);
      }
      return String(value); // -0 reads "0", as RFC 8785 wants
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      // RFC 8785 sorts keys by UTF-16 code units: the order of JavaScript's default sort.
      const keys = Object.keys(value).sort();
      return `{${keys.map((key) => `${quote(key)}:${canonicalJson(value[key])}`).join(",")}}`;
    }
    default:
      throw new VerifierError(`a ${typeof value} is not JSON`);
  }
}

/** FAIR-11: the entry without its hash fields (nor a hidden entry's key, FAIR-17). */
export function contentOf(entry) {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !NOT_HASHED.has(key)));
}

export async function contentHash(entry) {
  return sha256Hex(utf8(canonicalJson(contentOf(entry))));
}

export async function chainHash(prevHash, seq, contentDigest) {
  return sha256Hex(utf8(`${prevHash}:${seq}:${contentDigest}`));
}

export function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
