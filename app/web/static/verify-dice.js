// The dice stream (FAIR-1, FAIR-6, FAIR-7): commitments and faces re-derived from a seed.

import { VerifierError, hmacSha256, sha256Hex, utf8 } from "./verify-hashes.js";

const MAX_SIDES = 2 ** 32;

/** FAIR-1: lowercase hex SHA-256 of the 32 seed bytes. */
export async function commitment(seedBytes) {
  return sha256Hex(seedBytes);
}

/** FAIR-6: block k of the stream of the entry with nonce n. */
export async function streamBlock(key, campaignId, epoch, clientSeed, nonce, block) {
  return hmacSha256(key, utf8(`${campaignId}:${epoch}:${clientSeed}:${nonce}:${block}`));
}

/** FAIR-6: a 32-byte block read as eight unsigned 32-bit big-endian integers. */
export function blockWords(block) {
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  return Array.from({ length: block.byteLength / 4 }, (_, i) => view.getUint32(4 * i));
}

/** FAIR-7: the face a 32-bit word gives a die of `sides`, or null when it is rejected. */
export function faceFromWord(word, sides) {
  return word < MAX_SIDES - (MAX_SIDES % sides) ? 1 + (word % sides) : null;
}

function checkSides(sides) {
  if (!Number.isInteger(sides) || sides < 1 || sides > MAX_SIDES) {
    throw new VerifierError(`a die has 1..2^32 sides, got ${JSON.stringify(sides)}`);
  }
}

/**
 * FAIR-6/7: the faces the stream keyed by `key` (an epoch's seed, or a hidden entry's key,
 * FAIR-17) gives dice of these sides, in order, for the entry with nonce `nonce`.
 */
export async function drawFaces(key, campaignId, epoch, clientSeed, nonce, sides) {
  if (key.length !== 32) throw new VerifierError("a stream's key is 32 bytes");
  const faces = [];
  let words = [];
  let position = 0;
  let block = 0;
  for (const die of sides) {
    checkSides(die);
    for (;;) {
      if (position === words.length) {
        words = blockWords(await streamBlock(key, campaignId, epoch, clientSeed, nonce, block));
        position = 0;
        block += 1;
      }
      const face = faceFromWord(words[position], die);
      position += 1;
      if (face !== null) {
        faces.push(face);
        break;
      }
    }
  }
  return faces;
}
