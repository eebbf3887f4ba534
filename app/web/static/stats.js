// Statistics as bar charts: per player, each kind's observed outcomes against the
// expected ones, the mean luck percentile, and the die faces against a uniform count.
import { el, clear } from "./dom.js";
import { plural } from "./i18n.js";

/** A bar whose length is `value / max`, its value written after it. Widths go through the
 * CSSOM, which the page's policy allows (it forbids style attributes). */
function bar(value, max, className, text) {
  const fill = el("span", { class: "fill" });
  fill.style.width = `${Math.max(0, Math.min(1, value / max)) * 100}%`;
  return el("span", { class: `bar ${className}` }, el("span", { class: "track" }, fill), el("span", { class: "value", text }));
}

/** Paired horizontal bars, observed above expected, one pair per label; labels sit on the
 * left and wrap, so long outcome names and twenty die faces stay readable on a phone. */
export function pairedBars(rows, { t, number, observedKey = "stats.observed", expectedKey = "stats.expected" }) {
  const max = Math.max(1e-9, ...rows.flatMap((row) => [row.observed, row.expected]));
  return el(
    "figure",
    { class: "chart", "aria-label": `${t(observedKey)} / ${t(expectedKey)}` },
    el(
      "ul",
      { class: "pairs" },
      rows.map((row) =>
        el(
          "li",
          {
            class: "pair",
            dataset: { label: row.label },
            title: `${row.label}: ${t(observedKey)} ${number(row.observed, 2)}, ${t(expectedKey)} ${number(row.expected, 2)}`,
          },
          el("span", { class: "label", text: row.label }),
          el(
            "span",
            { class: "bars" },
            bar(row.observed, max, "observed", number(row.observed, 1)),
            bar(row.expected, max, "expected", number(row.expected, 1)),
          ),
        ),
      ),
    ),
    el(
      "figcaption",
      { class: "legend" },
      el("span", { class: "key observed" }),
      t(observedKey),
      el("span", { class: "key expected" }),
      t(expectedKey),
    ),
  );
}

function pValue(fit, t, number) {
  if (!fit) return null;
  return el(
    "p",
    { class: "fit" },
    t("stats.fit", { p: number(fit.p_value, 3) }),
    fit.approximate ? ` ${t("stats.approximate")}` : "",
  );
}

function kindBlock(kind, ctx) {
  const { t, number } = ctx;
  const outcomes = kind.outcomes || [];
  return el(
    "div",
    { class: "kind-stats", dataset: { kind: kind.kind } },
    el("h5", { text: `${ctx.kindTitle(kind.kind)} — ${plural("stats.rolls.noluck", kind.rolls, { rolls: kind.rolls })}` }),
    outcomes.length
      ? pairedBars(
          outcomes.map((o) => ({ label: ctx.outcomeLabel(o.code), observed: o.observed_with_odds, expected: o.expected })),
          ctx,
        )
      : null,
    pValue(kind.fit, t, number),
  );
}

function rollsLine(block, t, number) {
  return block.mean_luck_percentile === null || block.mean_luck_percentile === undefined
    ? plural("stats.rolls.noluck", block.rolls, { rolls: block.rolls })
    : plural("stats.rolls", block.rolls, {
        rolls: block.rolls,
        luck: number(block.mean_luck_percentile, 0),
      });
}

export async function showStats(panel, ctx) {
  const { api, campaign, t, number } = ctx;
  const stats = await api.get(`/campaigns/${campaign.id}/stats`, { group_by: "actor" });
  const groups = stats.groups || [];
  clear(panel).append(
    el("h3", { text: t("stats.title") }),
    el("p", { class: "intro", text: t("stats.intro") }),
    el("p", { class: "overall", text: rollsLine(stats, t, number) }),
  );
  if (!stats.rolls) {
    panel.append(el("p", { class: "note", text: t("stats.none") }));
    return;
  }
  for (const group of groups) {
    const name = ctx.names(group.key) || t("stats.unknown");
    panel.append(
      el(
        "section",
        { class: "player-stats", dataset: { actor: group.key } },
        el("h4", { text: name }),
        el("p", { class: "luck-line", text: rollsLine(group, t, number) }),
        (group.kinds || []).filter((kind) => (kind.outcomes || []).length).map((kind) => kindBlock(kind, ctx)),
      ),
    );
  }
  const dice = stats.dice || [];
  if (dice.length) {
    panel.append(
      el(
        "section",
        { class: "dice-stats" },
        el("h4", { text: t("stats.dice") }),
        dice
          .filter((die) => die.sides <= 20)
          .map((die) =>
            el(
              "div",
              { class: "die-stats", dataset: { sides: die.sides } },
              el("p", {
                text: t("stats.dice.caption", {
                  dice: die.dice,
                  sides: die.sides,
                  expected: number(die.expected_each, 1),
                  p: die.uniformity ? number(die.uniformity.p_value, 3) : "—",
                }),
              }),
              pairedBars(
                die.faces.map((count, i) => ({ label: String(i + 1), observed: count, expected: die.expected_each })),
                ctx,
              ),
            ),
          ),
      ),
    );
  }
}
