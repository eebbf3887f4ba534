// Statistics as charts drawn in SVG: per player, each kind's observed outcomes against the
// expected ones, the mean luck percentile, and the die faces against a uniform count.
import { el, clear } from "./dom.js";
import { plural } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes = {}, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** Paired bars, observed and expected, one pair per label. */
export function pairedBars(rows, { t, number, observedKey = "stats.observed", expectedKey = "stats.expected" }) {
  const width = Math.max(220, rows.length * 76 + 20);
  const height = 170;
  const top = 14;
  const base = 120;
  const max = Math.max(1e-9, ...rows.flatMap((row) => [row.observed, row.expected]));
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart",
    role: "img",
    preserveAspectRatio: "xMinYMin meet",
  });
  chart.append(svg("title", {}, `${t(observedKey)} / ${t(expectedKey)}`));
  chart.append(svg("line", { x1: 10, y1: base, x2: width - 10, y2: base, class: "axis" }));
  rows.forEach((row, i) => {
    const x = 16 + i * 76;
    const scale = (value) => ((base - top) * value) / max;
    const observed = scale(row.observed);
    const expected = scale(row.expected);
    const group = svg("g", { class: "pair", "data-label": row.label });
    group.append(
      svg("rect", { x, y: base - observed, width: 20, height: Math.max(observed, 0.5), class: "observed" }),
      svg("rect", { x: x + 22, y: base - expected, width: 20, height: Math.max(expected, 0.5), class: "expected" }),
      svg("text", { x: x + 10, y: base - observed - 3, class: "value" }, number(row.observed, 1)),
      svg("text", { x: x + 32, y: base - expected - 3, class: "value" }, number(row.expected, 1)),
      svg("text", { x: x + 21, y: base + 14, class: "label" }, row.label.length > 16 ? `${row.label.slice(0, 15)}…` : row.label),
    );
    group.append(svg("title", {}, `${row.label}: ${t(observedKey)} ${number(row.observed, 2)}, ${t(expectedKey)} ${number(row.expected, 2)}`));
    chart.append(group);
  });
  const legend = svg("g", { class: "legend" });
  legend.append(
    svg("rect", { x: 12, y: height - 22, width: 12, height: 12, class: "observed" }),
    svg("text", { x: 28, y: height - 12, class: "legend-text" }, t(observedKey)),
    svg("rect", { x: 112, y: height - 22, width: 12, height: 12, class: "expected" }),
    svg("text", { x: 128, y: height - 12, class: "legend-text" }, t(expectedKey)),
  );
  chart.append(legend);
  return chart;
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
