// An entry's detail: its inputs, dice, result, effects, follow-ups and hashes, its luck, and
// the odds of the roll asked again of POST /odds (nothing is shown when the API refuses).
import { el, clear, markedText } from "./dom.js";
import { initiativeCards, pageSentence } from "./sentences.js";
import { drawn } from "./timeline.js";

const MAX_ROWS = 80;
// What the service adds to a request when it prepares it: not part of the body a client sends.
const PREPARED = new Set(["system", "family", "session", "scene", "character", "follow_ups", "options", "roll"]);

/** Rows "a.b.c: value" for a JSON value, the first MAX_ROWS of them. */
export function flatten(value, prefix = "", rows = []) {
  if (rows.length >= MAX_ROWS) return rows;
  if (value !== null && typeof value === "object") {
    const items = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    if (!items.length) rows.push([prefix || "—", Array.isArray(value) ? "[]" : "{}"]);
    for (const [key, item] of items) flatten(item, prefix ? `${prefix}.${key}` : key, rows);
  } else {
    rows.push([prefix || "—", value === null ? "—" : String(value)]);
  }
  return rows;
}

function table(value, t) {
  const rows = flatten(value);
  if (!rows.length) return el("p", { class: "note", text: t("detail.none") });
  return el(
    "dl",
    { class: "fields" },
    rows.map(([key, text]) => [el("dt", { text: key }), el("dd", {}, markedText(text))]),
  );
}

/** The body of POST /odds for a logged roll: its request without what the service added. */
export function oddsBody(entry) {
  const request = entry.request || {};
  const body = { kind: entry.kind };
  for (const [key, value] of Object.entries(request)) {
    if (!PREPARED.has(key)) body[key] = value;
  }
  // A Fabulae request keeps the roll's fields under `roll`; the body has them at the top.
  if (request.roll && typeof request.roll === "object") Object.assign(body, request.roll);
  const character = request.character;
  if (character && typeof character === "object" && character.id) body.character_id = character.id;
  return body;
}

function bar(fraction) {
  // Set through the CSSOM, which the page's policy allows (it forbids style attributes).
  const fill = el("span", { class: "fill" });
  fill.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  return fill;
}

function oddsChart(odds, happened, ctx) {
  const { t, number } = ctx;
  let outcomes = (odds && odds.outcomes) || [];
  if (!outcomes.length) {
    // Generic dice have no outcomes: their odds are the distribution of totals, and the luck's
    // outcome is the total rolled.
    const distributions = (odds && odds.distributions) || [];
    const totals = distributions.find((d) => d.name === (odds.ranked_by || "total")) || distributions[0];
    outcomes = totals ? totals.values.map((v) => ({ code: String(v.value), label: String(v.value), probability: v.probability })) : [];
  }
  if (!outcomes.length) return null;
  return el(
    "ul",
    { class: "odds" },
    outcomes.map((outcome) =>
      el(
        "li",
        { class: outcome.code === happened ? "odds-row happened" : "odds-row" },
        el("span", { class: "odds-code", text: outcome.label || ctx.outcomeLabel(outcome.code) }),
        el("span", { class: "odds-bar" }, bar(outcome.probability)),
        el("span", {
          class: "odds-value",
          text: `${number(outcome.probability * 100, 1)} %${
            outcome.code === happened ? ` ← ${t("detail.happened")}` : ""
          }`,
        }),
      ),
    ),
  );
}

async function loadOdds(box, entry, ctx) {
  const { api, campaign, t } = ctx;
  const params = entry.request && entry.request.request_id ? { request_id: entry.request.request_id } : {};
  const body = oddsBody(entry);
  const ask = () => api.post(`/campaigns/${campaign.id}/odds`, body, params);
  try {
    let answer;
    try {
      answer = await ask();
    } catch (error) {
      // The logged request may hold what the service recorded beside the body: ask once more
      // without the fields the validation names as extra.
      const extra = ((error.problem && error.problem.errors) || []).filter((e) => e.type === "extra_forbidden");
      if (error.status !== 422 || !extra.length) throw error;
      for (const problem of extra) delete body[problem.loc[problem.loc.length - 1]];
      answer = await ask();
    }
    const chart = oddsChart(answer.odds, entry.luck && entry.luck.outcome, ctx);
    if (chart) clear(box).append(el("h4", { text: t("detail.odds") }), chart);
    else box.remove();
  } catch {
    box.remove(); // refused (a hidden input, a kind without odds): nothing to show
  }
}

/** The inputs, each sheet the rules read folded away under its character's name. */
function inputs(request, t) {
  const shown = {};
  const sheets = [];
  for (const [key, value] of Object.entries(request)) {
    if (value && typeof value === "object" && !Array.isArray(value) && value.sheet && typeof value.sheet === "object") {
      const { sheet, ...rest } = value;
      shown[key] = rest;
      sheets.push([rest.name || key, sheet]);
    } else {
      shown[key] = value;
    }
  }
  return [
    table(shown, t),
    sheets.map(([name, sheet]) =>
      el("details", { class: "sheet" }, el("summary", { text: t("detail.sheet", { name }) }), table(sheet, t)),
    ),
  ];
}

export function showDetail(panel, entry, ctx) {
  const { t, number } = ctx;
  const effects = entry.effects || [];
  const followUps = entry.follow_ups || [];
  const section = (key, ...content) =>
    el("section", { class: `detail-${key}` }, el("h4", { text: t(`detail.${key}`) }), content);
  // The sections left out are null: dropped here, as the native append prints null as "null".
  const parts = [
    el(
      "div",
      { class: "detail-head" },
      el("h3", { text: t("detail.title", { seq: entry.seq }) }),
      el("button", {
        type: "button",
        class: "close",
        text: t("detail.close"),
        onclick: () => {
          panel.hidden = true;
        },
      }),
    ),
    el("p", { class: "summary" }, markedText(pageSentence(entry, ctx) || entry.summary || entry.kind)),
    entry.redacted ? null : section("inputs", inputs(entry.request || {}, t)),
    initiativeCards(entry)
      ? section("cards", drawn(entry, t))
      : entry.draws && entry.draws.length
        ? section("draws", drawn(entry, t))
        : null,
    entry.redacted ? null : section("result", table(entry.result || {}, t)),
    entry.redacted
      ? null
      : section(
          "effects",
          effects.length
            ? el(
                "ul",
                {},
                effects.map((effect) =>
                  el("li", {
                    text: `${ctx.characterName(effect.character_id) || ""} ${effect.field}: ${JSON.stringify(effect.before)} → ${JSON.stringify(effect.after)}${effect.rule ? ` (${effect.rule})` : ""}`,
                  }),
                ),
              )
            : el("p", { class: "note", text: t("detail.none") }),
        ),
    followUps.length
      ? section(
          "followups",
          el(
            "ul",
            {},
            followUps.map((f) => el("li", { text: `#${f.seq} ${ctx.kindTitle(f.kind)}${f.status ? ` (${f.status})` : ""}` })),
          ),
        )
      : null,
    section(
      "hashes",
      el(
        "dl",
        { class: "fields hashes" },
        [
          ["hash.prev", entry.prev_hash],
          ["hash.content", entry.content_hash],
          ["hash.entry", entry.hash],
        ].map(([key, value]) => [el("dt", { text: t(key) }), el("dd", { class: "hash", text: value || "—" })]),
      ),
    ),
    entry.luck
      ? section(
          "luck",
          el("p", {
            class: "luck-text",
            text: t("detail.luck.text", {
              percentile: number(entry.luck.percentile, 0),
              probability: `${number(entry.luck.probability * 100, 1)} %`,
            }),
          }),
        )
      : null,
  ].filter((part) => part !== null && part !== undefined && part !== false);
  clear(panel).append(...parts);
  if (!entry.redacted && entry.luck && !entry.follows) {
    const box = el("section", { class: "detail-odds" }, el("p", { class: "note", text: t("detail.odds.loading") }));
    panel.append(box);
    loadOdds(box, entry, ctx);
  }
  panel.hidden = false;
  panel.scrollIntoView({ block: "nearest" });
}
