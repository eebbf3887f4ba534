// Hidden rolls and secret inputs (FAIR-16..18): entry keys under an epoch's Merkle root,
// and salted commitments of values some member may not see.

import {
  VerifierError,
  canonicalJson,
  concat,
  fromHex,
  hmacSha256,
  isObject,
  sha256,
  sha256Hex,
  toHex,
  utf8,
} from "./verify-hashes.js";

export const SPAN = 4096; // FAIR-16: seqs an epoch can key
const LEVELS = 12; // log2(SPAN)
export const COMMIT = "$commit"; // FAIR-18: the key of a value replaced by its commitment

export async function entryKey(hiddenSeed, campaignId, epoch, seq) {
  if (hiddenSeed.length !== 32) throw new VerifierError("a hidden seed is 32 bytes");
  return hmacSha256(hiddenSeed, utf8(`hidden:${campaignId}:${epoch}:${seq}`));
}

export async function leafHash(key) {
  return sha256(concat(Uint8Array.of(0), key));
}

export async function nodeHash(left, right) {
  return sha256(concat(Uint8Array.of(1), left, right));
}

/** FAIR-16: the root of the tree of an epoch's 4096 entry keys (what a GM checks a revealed
 * hidden_seed against). */
export async function keyTreeRoot(hiddenSeed, campaignId, epoch, firstSeq) {
  const seqs = Array.from({ length: SPAN }, (_, i) => firstSeq + i);
  let level = await Promise.all(
    seqs.map(async (seq) => leafHash(await entryKey(hiddenSeed, campaignId, epoch, seq))),
  );
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i], level[i + 1]));
    level = await Promise.all(next);
  }
  return toHex(level[0]);
}

/** The root a key and its proof (sibling hashes, leaf up) lead to, for leaf `index`. */
export async function proofRoot(key, index, proof) {
  let node = await leafHash(key);
  for (const sibling of proof) {
    node = index % 2 === 0 ? await nodeHash(node, sibling) : await nodeHash(sibling, node);
    index = Math.floor(index / 2);
  }
  return node;
}

/** FAIR-17: the key's bytes, when it and its proof lead to the epoch's published root. */
export async function checkKey(keyHex, proofHex, index, rootHex) {
  let key;
  let proof;
  try {
    if (!Array.isArray(proofHex)) throw new VerifierError("a proof is a list");
    key = fromHex(keyHex);
    proof = proofHex.map(fromHex);
  } catch (error) {
    if (!(error instanceof VerifierError)) throw error;
    throw new VerifierError("an entry key and its proof are lowercase hex");
  }
  if (key.length !== 32 || proof.length !== LEVELS || proof.some((s) => s.length !== 32)) {
    throw new VerifierError(`an entry key is 32 bytes and its proof ${LEVELS} hashes of 32 bytes`);
  }
  if (!(index >= 0 && index < SPAN)) {
    throw new VerifierError(`FAIR-16: the entry is outside its epoch's span of ${SPAN} seqs`);
  }
  if (toHex(await proofRoot(key, index, proof)) !== rootHex) {
    throw new VerifierError(
      "FAIR-17: the entry key and proof do not lead to the epoch's hidden_root",
    );
  }
  return key;
}

/** FAIR-18: SHA-256(salt ‖ RFC 8785 JSON of the value), lowercase hex. */
export async function valueCommitment(salt, value) {
  return sha256Hex(concat(salt, utf8(canonicalJson(value))));
}

function isCommitment(value) {
  return isObject(value) && Object.keys(value).length === 1 && typeof value[COMMIT] === "string";
}

function pointer(path) {
  if (!path.startsWith("/")) {
    const got = JSON.stringify(path);
    throw new VerifierError(`FAIR-18: a disclosure's path is a JSON pointer, got ${got}`);
  }
  return path.slice(1).split("/").map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function child(node, token) {
  if (Array.isArray(node)) {
    if (!/^[+-]?\d+$/.test(token)) return undefined;
    const index = Number(token);
    return node[index < 0 ? node.length + index : index];
  }
  return isObject(node) && Object.hasOwn(node, token) ? node[token] : undefined;
}

/**
 * FAIR-18: the entry with each disclosed commitment replaced by its value, once the salt
 * and the value hash to it. Values not disclosed stay committed.
 */
export async function openCommitments(entry, disclosures) {
  const opened = structuredClone(entry);
  for (const disclosure of Array.isArray(disclosures) ? disclosures : [null]) {
    let salt;
    try {
      if (!isObject(disclosure) || !("path" in disclosure) || !("value" in disclosure)) {
        throw new VerifierError("incomplete");
      }
      salt = fromHex(disclosure.salt);
    } catch (error) {
      if (!(error instanceof VerifierError)) throw error;
      throw new VerifierError("FAIR-18: a disclosure holds a path, a hex salt and a value");
    }
    const path = String(disclosure.path);
    const tokens = pointer(path);
    const leaf = tokens.pop();
    let node = opened;
    for (const token of tokens) node = child(node, token);
    const committed = child(node, leaf);
    if (committed === undefined) {
      throw new VerifierError(`FAIR-18: the disclosure's path ${path} leads nowhere`);
    }
    if (!isCommitment(committed)) {
      throw new VerifierError(`FAIR-18: nothing is committed at ${path}`);
    }
    if ((await valueCommitment(salt, disclosure.value)) !== committed[COMMIT]) {
      throw new VerifierError(
        `FAIR-18: the value disclosed at ${path} does not match its commitment`,
      );
    }
    const index = Array.isArray(node) && Number(leaf) < 0 ? node.length + Number(leaf) : leaf;
    node[index] = disclosure.value;
  }
  return opened;
}
