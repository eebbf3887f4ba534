// Verify an exported Nocturne campaign log in the browser (FAIR-10..21), with WebCrypto only.
//
// It mirrors `verify_log` (app/engine/audit.py), which `nocturne-verify` runs, in every
// check that needs no rules: the canonical content hashes and the chain (FAIR-11), seq
// without gap (FAIR-5), epochs opened in order and committed before their first roll, each
// revealed seed against its commitment (FAIR-1..4), every draw of a closed epoch re-derived
// from the revealed seed (FAIR-6/7), a hidden entry's dice from its own key once its Merkle
// proof leads to the epoch's hidden_root (FAIR-16/17), disclosed values against their
// commitments (FAIR-18/19). Redacted entries are checked by the chain only (FAIR-13).
// Replaying the rules (the recorded result follows from the request and the draws) is the
// command's job: this module never reads a result to decide whether a roll is fair.

import {
  VerifierError,
  canonicalJson,
  chainHash,
  contentOf,
  fromHex,
  isObject,
  sha256Hex,
  subtle,
  utf8,
} from "./verify-hashes.js";
import { commitment, drawFaces } from "./verify-dice.js";
import { COMMIT, checkKey, openCommitments } from "./verify-hidden.js";

// The building blocks, for whoever checks one value (and for the vector tests).
export {
  VerifierError,
  canonicalJson,
  chainHash,
  contentHash,
  contentOf,
  fromHex,
  hmacSha256,
  sha256Hex,
  toHex,
  utf8,
} from "./verify-hashes.js";
export { blockWords, commitment, drawFaces, faceFromWord, streamBlock } from "./verify-dice.js";
export {
  SPAN,
  checkKey,
  entryKey,
  keyTreeRoot,
  openCommitments,
  proofRoot,
  valueCommitment,
} from "./verify-hidden.js";

export const GENESIS_HASH = "0".repeat(64);
const FAIRNESS_VERSION = 2; // `"fairness": 2` in entries made under FAIR-16..21
const COMMIT_KEY = `"${COMMIT}":`; // how that key reads in canonical JSON (never inside a string)
const HASH_FIELDS = ["prev_hash", "content_hash", "hash"];
const REDACTED_FIELDS = ["seq", "epoch", "kind", "visibility", "created_at", ...HASH_FIELDS];
const CONTENT_FIELDS = [
  "seq", "epoch", "kind", "created_at", "actor_id", "character_id", "visibility",
  "request", "draws", "result", "effects",
];
const CLIENT_SEED = /^[A-Za-z0-9_-]{0,64}$/;
const HEX_64 = /^[0-9a-f]{64}$/;

// The registry's entry kinds the audit checks by structure only (no rule, no draw to
// re-derive), and the kinds that are rolls even when redacted (FAIR-3, FAIR-20). The
// browser tests keep both equal to app/engine/registry.py.
export const STRUCTURAL_KINDS = new Set([
  "epoch_opened", "client_seed_set", "epoch_closed", "sheet_edit", "sheet_override",
  "options_changed", "encounter.created", "encounter.joined", "encounter.left",
  "encounter.turn", "encounter.ended", "disclosed", "effects_applied", "roll_requested",
  "roll_request_cancelled",
]);
export const ROLL_KINDS = new Set([
  "dice",
  "fabulae.action", "fabulae.attack", "fabulae.break_free", "fabulae.danger",
  "fabulae.death_test", "fabulae.defend", "fabulae.grapple", "fabulae.initiative",
  "fabulae.oppose", "fabulae.opposed", "fabulae.panic", "fabulae.power", "fabulae.push",
  "fabulae.recover", "fabulae.repair", "fabulae.second_wind", "fabulae.sequela",
  "fabulae.stabilize", "fabulae.state_choice", "fabulae.strangle", "fabulae.street_rat",
  "fabulae.stress_resist",
  "jdr.action", "jdr.attack", "jdr.effleurement", "jdr.effleurement_refusal",
  "jdr.holy_water", "jdr.initiative", "jdr.joker", "jdr.mythos", "jdr.talisman",
  "jdr.talisman_ruling",
  "vampire.action", "vampire.damage", "vampire.initiative",
]);

// Reasons counted, worded as nocturne-verify words them.
const REDACTED = "redacted: hidden from whoever verifies (FAIR-13)";
const NO_KEY = "hidden entry given without its entry key (FAIR-17)";
const NOT_REVEALED = "its epoch's seed is not revealed yet (FAIR-4)";

// --- reading an export --------------------------------------------------------------------

/** Whether a JSON text writes a number with a fraction or an exponent: JSON.parse reads 1.0
 * as 1, so FAIR-10 is checked on the text itself. */
function holdsFloat(text) {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: skip it, escapes included
      i += 1;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i += 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let plain = true;
      for (; j < n; j += 1) {
        const d = text.charCodeAt(j);
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) plain = false;
        else if (d < 48 || d > 57) break;
      }
      if (!plain) return true;
      i = j;
    } else {
      i += 1;
    }
  }
  return false;
}

/**
 * The export's entries up to its first unreadable line, as nocturne-verify reads them, and
 * for each whether its text holds a floating-point number.
 */
export function readExport(ndjsonText) {
  const entries = [];
  const floats = [];
  const lines = ndjsonText.split(/\r\n|\r|\n/);
  for (let number = 1; number <= lines.length; number += 1) {
    const line = lines[number - 1];
    if (!line.trim()) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      const unreadable = `line ${number} is cut off or not JSON (${error.message})`;
      return { entries, floats, unreadable };
    }
    if (!isObject(entry)) {
      return { entries, floats, unreadable: `line ${number} is not a JSON object` };
    }
    entries.push(entry);
    floats.push(holdsFloat(line));
  }
  return { entries, floats, unreadable: null };
}

/** `SEQ:HASH`, as in the export's Log-Head header. */
export function parseHead(text) {
  const [seq, digest] = String(text).split(/:(.*)/s);
  if (!/^\d+$/.test(seq) || digest === undefined || digest.length !== 64) {
    throw new VerifierError("expected SEQ:HASH, as in the export's Log-Head header");
  }
  return { seq: Number(seq), hash: digest };
}

function isInt(value) {
  return typeof value === "number" && Number.isInteger(value);
}

/** Seeds revealed by epoch_closed entries that match their epoch's first commitment, read
 * ahead so draws re-derive before the reveal; each reveal is judged at its own seq. */
export async function revealedSeeds(entries) {
  const commitments = new Map();
  const seeds = new Map();
  for (const entry of entries) {
    const { result, epoch } = entry;
    if (entry.redacted || !isObject(result) || !isInt(epoch)) continue;
    if (entry.kind === "epoch_opened" && typeof result.commitment === "string") {
      if (!commitments.has(epoch)) commitments.set(epoch, result.commitment);
    } else if (entry.kind === "epoch_closed" && typeof result.server_seed === "string") {
      let seed;
      try {
        seed = fromHex(result.server_seed);
      } catch {
        continue;
      }
      if (seed.length === 32 && commitments.get(epoch) === (await commitment(seed))) {
        if (!seeds.has(epoch)) seeds.set(epoch, seed);
      }
    }
  }
  return seeds;
}

// --- the walk -----------------------------------------------------------------------------

class Failure extends Error {
  constructor(seq, check, detail) {
    super(detail);
    this.seq = seq;
    this.check = check;
    this.detail = detail;
  }
}

function fail(seq, check, detail) {
  throw new Failure(seq, check, detail);
}

/** Run a building block; what it refuses fails the entry with `check`. */
async function refused(seq, check, prefix, run) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof VerifierError) fail(seq, check, prefix + error.message);
    throw error;
  }
}

function count(tally, reason) {
  tally[reason] = (tally[reason] || 0) + 1;
}

class Walk {
  constructor(campaignId, seeds, floats) {
    this.campaignId = campaignId;
    this.seeds = seeds;
    this.floats = floats;
    this.epochs = new Map();
    this.epochOf = new Map(); // seq → epoch, for the disclosures that name it (FAIR-19)
    this.committed = new Map(); // seq → entry holding commitments, as hashed
    this.checked = {
      content_hashes: 0,
      chain: 0,
      seq: 0,
      commitments: 0,
      draws: 0,
      epochs_closed: 0,
      hidden_keys: 0,
      disclosures: 0,
    };
    this.notRederived = {};
    this.chainOnly = {};
  }

  async entry(entry, index, expected, prevHash) {
    const redacted = entry.redacted === true;
    const required = redacted ? REDACTED_FIELDS : [...CONTENT_FIELDS, ...HASH_FIELDS];
    const seq = isInt(entry.seq) ? entry.seq : null;
    const at = seq || expected;
    if (this.floats[index]) {
      fail(at, "format", "entry holds a floating-point number (FAIR-10)");
    }
    const missing = required.filter((name) => !Object.hasOwn(entry, name));
    if (missing.length) fail(at, "format", `entry lacks ${missing.join(", ")}`);
    if (seq !== expected) {
      fail(at, "seq", `seq gap: expected ${expected}, found ${JSON.stringify(entry.seq)}`);
    }
    this.checked.seq += 1;
    if (entry.prev_hash !== prevHash) {
      fail(seq, "chain", `prev_hash does not link to the hash of entry ${seq - 1}`);
    }
    let committed = false;
    if (!redacted) {
      const body = await refused(seq, "format", "", () => canonicalJson(contentOf(entry)));
      if ((await sha256Hex(utf8(body))) !== entry.content_hash) {
        fail(seq, "content_hash", "content_hash does not match the entry's content");
      }
      this.checked.content_hashes += 1;
      committed = body.includes(COMMIT_KEY);
      if (committed) this.committed.set(seq, entry);
    }
    if ((await chainHash(prevHash, seq, String(entry.content_hash))) !== entry.hash) {
      fail(seq, "chain", "hash does not match prev_hash, seq and content_hash");
    }
    this.checked.chain += 1;
    await this.fairness(entry, seq, redacted, committed);
  }

  async fairness(entry, seq, redacted, committed) {
    const { kind, epoch: number } = entry;
    if (typeof kind !== "string") fail(seq, "format", "kind must be a string");
    if (!isInt(number) || number < 1) {
      fail(seq, "format", `epoch must be a positive integer, got ${JSON.stringify(number)}`);
    }
    if (kind === "epoch_opened") this.open(seq, number);
    const epoch = this.epochs.get(number);
    if (epoch === undefined) {
      fail(seq, "epoch", `epoch ${number} is used before its commitment was published`);
    }
    if (epoch.closed) {
      fail(seq, "epoch", `entry in epoch ${number} after its seed was revealed (FAIR-4)`);
    }
    // FAIR-20: an entry that draws a die is a roll, whatever its kind.
    const drawsDice = !redacted && Array.isArray(entry.draws) && entry.draws.length > 0;
    if ((ROLL_KINDS.has(kind) || drawsDice) && epoch.firstRollSeq === null) {
      epoch.firstRollSeq = seq;
    }
    if (redacted) {
      count(this.chainOnly, REDACTED); // the chain is checked; the content is not ours to see
      return;
    }
    const fairness = Object.hasOwn(entry, "fairness") ? entry.fairness : 1;
    if (fairness !== 1 && fairness !== FAIRNESS_VERSION) {
      const got = JSON.stringify(fairness);
      fail(seq, "format", `fairness must be 1 or ${FAIRNESS_VERSION}, got ${got}`);
    }
    const { result } = entry;
    if (!isObject(result)) fail(seq, "format", "result must be an object");
    if (kind === "epoch_opened") this.recordCommitment(seq, epoch, result, fairness);
    else if (kind === "client_seed_set") this.recordClientSeed(seq, epoch, result);
    else if (kind === "epoch_closed") await this.checkReveal(seq, number, epoch, result);
    else if (kind === "disclosed") await this.checkDisclosure(seq, result);
    else if (!STRUCTURAL_KINDS.has(kind)) {
      if (!Array.isArray(entry.draws) || !isObject(entry.request)) {
        fail(seq, "format", "draws must be a list and request an object");
      }
      if (entry.draws.length) await this.checkDraws(entry, seq, number, epoch, fairness);
      if ((committed || Object.hasOwn(entry, "disclosures")) && entry.disclosures != null) {
        if (!Array.isArray(entry.disclosures)) {
          fail(seq, "disclosure", "disclosures must be a list");
        }
        await refused(seq, "disclosure", "", () => openCommitments(entry, entry.disclosures));
        this.checked.disclosures += entry.disclosures.length;
      }
    }
  }

  /** FAIR-4: epochs open in order, each after the previous one was closed. */
  open(seq, number) {
    if (this.epochs.has(number) || (number !== 1 && !this.epochs.has(number - 1))) {
      fail(seq, "epoch", `epoch ${number} opened out of order`);
    }
    if (number > 1 && !this.epochs.get(number - 1).closed) {
      fail(seq, "epoch", `epoch ${number} opened before epoch ${number - 1} was closed (FAIR-4)`);
    }
    this.epochs.set(number, {
      commitment: null,
      campaignId: null,
      clientSeed: "",
      firstRollSeq: null,
      closed: false,
      openedSeq: seq,
      hiddenRoot: null,
    });
  }

  recordCommitment(seq, epoch, result, fairness) {
    const { commitment: digest, campaign_id: owner } = result;
    if (typeof digest !== "string" || digest.length !== 64) {
      fail(seq, "commitment", "epoch_opened carries no SHA-256 commitment");
    }
    if (fairness >= FAIRNESS_VERSION) {
      const root = result.hidden_root;
      if (typeof root !== "string" || !HEX_64.test(root)) {
        fail(seq, "commitment", "epoch_opened under fairness 2 carries no hidden_root (FAIR-16)");
      }
      epoch.hiddenRoot = root;
    }
    if (owner != null && this.campaignId != null && owner !== this.campaignId) {
      fail(seq, "commitment", `epoch_opened belongs to campaign ${owner}, not ${this.campaignId}`);
    }
    epoch.commitment = digest;
    epoch.campaignId = typeof owner === "string" ? owner : this.campaignId;
    this.checked.commitments += 1;
  }

  /** FAIR-1/FAIR-3: 0..64 of [A-Za-z0-9_-], set before the epoch's first roll. */
  recordClientSeed(seq, epoch, result) {
    if (epoch.firstRollSeq !== null) {
      fail(seq, "client_seed", "client seed changed after the epoch's first roll (FAIR-3)");
    }
    const clientSeed = Object.hasOwn(result, "client_seed") ? result.client_seed : "";
    if (typeof clientSeed !== "string" || !CLIENT_SEED.test(clientSeed)) {
      fail(seq, "client_seed", "client seed is not 0..64 characters of [A-Za-z0-9_-] (FAIR-1)");
    }
    epoch.clientSeed = clientSeed;
  }

  async checkReveal(seq, number, epoch, result) {
    const seedHex = result.server_seed;
    let seed = new Uint8Array(0);
    if (typeof seedHex === "string") {
      try {
        seed = fromHex(seedHex);
      } catch (error) {
        if (!(error instanceof VerifierError)) throw error;
        fail(seq, "revealed_seed", "revealed server_seed is not hex");
      }
    }
    if (seed.length !== 32 || (await commitment(seed)) !== epoch.commitment) {
      fail(seq, "revealed_seed", `revealed seed does not match the commitment of epoch ${number}`);
    }
    epoch.closed = true;
    this.checked.epochs_closed += 1;
  }

  /** FAIR-6/7 and FAIR-17: the draws from the revealed seed, or a hidden entry's from its
   * own key once its proof leads to the root its epoch published. */
  async checkDraws(entry, seq, number, epoch, fairness) {
    let key;
    if (fairness >= FAIRNESS_VERSION && entry.visibility !== "public") {
      if (epoch.hiddenRoot === null) {
        const why = `epoch ${number} published no hidden_root (FAIR-16)`;
        fail(seq, "hidden_key", `hidden entry under fairness 2 but ${why}`);
      }
      if (!Object.hasOwn(entry, "entry_key")) {
        count(this.notRederived, NO_KEY);
        return;
      }
      const index = seq - epoch.openedSeq;
      key = await refused(seq, "hidden_key", "", () =>
        checkKey(entry.entry_key, entry.proof ?? null, index, epoch.hiddenRoot),
      );
      this.checked.hidden_keys += 1;
    } else {
      key = this.seeds.get(number);
      if (key === undefined) {
        count(this.notRederived, NOT_REVEALED);
        return;
      }
    }
    if (epoch.campaignId == null) {
      fail(seq, "draws", "the campaign id is unknown, so draws cannot be re-derived");
    }
    const draws = entry.draws;
    const faces = await refused(seq, "draws", "draws cannot be re-derived: ", () => {
      if (!draws.every((draw) => isObject(draw) && Object.hasOwn(draw, "sides"))) {
        throw new VerifierError("a draw lacks its sides");
      }
      const sides = draws.map((draw) => draw.sides);
      return drawFaces(key, epoch.campaignId, number, epoch.clientSeed, seq, sides);
    });
    if (faces.some((face, i) => face !== draws[i].face)) {
      fail(seq, "draws", "draws do not match the revealed seed's stream (FAIR-6)");
    }
    this.checked.draws += 1;
  }

  /** FAIR-19: every key a disclosure publishes leads to its epoch's root; every value it
   * publishes opens the commitment it names, when that entry was not redacted here. */
  async checkDisclosure(seq, result) {
    const disclosed = result.entries;
    if (!Array.isArray(disclosed)) fail(seq, "disclosure", "a disclosure lists its entries");
    for (const item of disclosed) {
      const target = isObject(item) ? item.seq : undefined;
      if (!isInt(target) || !this.epochOf.has(target)) {
        fail(seq, "disclosure", `the disclosure names no earlier entry: ${JSON.stringify(item)}`);
      }
      const prefix = `disclosed entry ${target}: `;
      if (item.disclosures != null && this.committed.has(target)) {
        const committed = this.committed.get(target);
        await refused(seq, "disclosure", prefix, () =>
          openCommitments(committed, item.disclosures),
        );
        this.checked.disclosures += item.disclosures.length;
      }
      if (item.entry_key == null) continue; // from before FAIR-16: keyed by its epoch seed
      const epoch = this.epochs.get(this.epochOf.get(target));
      if (epoch.hiddenRoot === null) {
        fail(seq, "disclosure", `entry ${target} has a key but its epoch published no root`);
      }
      const index = target - epoch.openedSeq;
      await refused(seq, "disclosure", prefix, () =>
        checkKey(item.entry_key, item.proof ?? null, index, epoch.hiddenRoot),
      );
      this.checked.hidden_keys += 1;
    }
  }
}

const PROGRESS_EVERY_MS = 50; // a report, and a chance for the page to repaint

/** Let the page handle its events and repaint: a message, which background tabs do not
 * throttle as they do timers. */
function yieldToPage() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Verify an NDJSON export (GET .../log/export) as nocturne-verify does, without replaying
 * the rules. Options: `campaignId` (the campaign's id, when its epoch_opened entries do not
 * carry it), `head` (the export's Log-Head header, `SEQ:HASH`: proves nothing was cut from
 * the end), `onProgress(done, total)` (called every 50 ms or so and after the last entry;
 * the page repaints between calls).
 *
 * Returns `{ ok, entries, checked, failure, not_rederived, chain_only, last_hash }`: the
 * entries checked, what each check counted, the first failure as `{ seq, check, detail }`
 * (check: format, seq, chain, content_hash, epoch, commitment, client_seed, revealed_seed,
 * draws, hidden_key, disclosure, head, json) or null, and by reason the entries whose draws
 * were not re-derived and those checked by the chain only.
 */
export async function verifyExport(ndjsonText, { campaignId, head, onProgress } = {}) {
  subtle(); // refuse at once where WebCrypto is missing, before reading anything
  let expectedHead = head ?? null;
  if (typeof expectedHead === "string") expectedHead = parseHead(expectedHead);
  const { entries, floats, unreadable } = readExport(String(ndjsonText));
  const walk = new Walk(campaignId ?? null, await revealedSeeds(entries), floats);
  const report = {
    ok: true,
    entries: 0,
    checked: walk.checked,
    failure: null,
    not_rederived: walk.notRederived,
    chain_only: walk.chainOnly,
    last_hash: null,
  };
  let prevHash = GENESIS_HASH;
  let expected = 1;
  let reported = performance.now();
  try {
    for (const [index, entry] of entries.entries()) {
      await walk.entry(entry, index, expected, prevHash);
      walk.epochOf.set(expected, entry.epoch);
      report.entries += 1;
      prevHash = String(entry.hash);
      expected += 1;
      const done = report.entries === entries.length;
      if (onProgress && (done || performance.now() - reported >= PROGRESS_EVERY_MS)) {
        onProgress(report.entries, entries.length);
        await yieldToPage();
        reported = performance.now();
      }
    }
    const last = expected - 1;
    if (expectedHead !== null && (last !== expectedHead.seq || prevHash !== expectedHead.hash)) {
      if (expectedHead.seq > last) {
        const why = `its head is seq ${expectedHead.seq}: entries are missing`;
        fail(last + 1, "head", `the log ends at seq ${last} but ${why}`);
      }
      const { seq, hash } = expectedHead;
      fail(seq, "head", `the log does not end on its head (seq ${seq}, hash ${hash})`);
    }
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    report.failure = { seq: error.seq, check: error.check, detail: error.detail };
  }
  if (report.failure === null && unreadable !== null) {
    const next = entries.length ? entries[entries.length - 1].seq + 1 : 1;
    report.failure = { seq: next, check: "json", detail: unreadable };
  } else if (report.failure === null && entries.length === 0) {
    report.failure = { seq: null, check: "format", detail: "the export holds no entry" };
  }
  report.ok = report.failure === null;
  report.last_hash = report.entries ? prevHash : null;
  return report;
}
