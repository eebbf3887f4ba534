// Dice drawn as little SVG dice: pips for a d6, the number on any other die. What the result
// says about each die (dropped, a success, a 1 that counts against, a stress die) shows as a
// class the stylesheet draws, and in the die's title for screen readers.
const SVG = "http://www.w3.org/2000/svg";
const PIPS = {
  1: [[2, 2]],
  2: [[1, 1], [3, 3]],
  3: [[1, 1], [2, 2], [3, 3]],
  4: [[1, 1], [3, 1], [1, 3], [3, 3]],
  5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
  6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
};

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** Marks per draw, read from the result where the ruleset says which dice count. */
export function diceMarks(entry) {
  const draws = entry.draws || [];
  const marks = draws.map(() => ({}));
  const result = entry.result || {};
  const kind = entry.kind || "";
  if (Array.isArray(result.kept) && result.kept.length === draws.length) {
    result.kept.forEach((kept, i) => {
      if (kept === false) marks[i].dropped = true;
    });
  }
  if (kind === "dice" && Array.isArray(result.groups)) {
    const rolls = result.groups.flatMap((group) => (Array.isArray(group.rolls) ? group.rolls : []));
    if (rolls.length === draws.length) {
      rolls.forEach((roll, i) => {
        if (roll.dropped || roll.rerolled) marks[i].dropped = true;
        if (roll.success) marks[i].hit = true;
        if (roll.exploded) marks[i].exploded = true;
      });
    }
  }
  if (kind.startsWith("vampire.") && Array.isArray(result.dice) && typeof result.difficulty === "number") {
    if (result.dice.length === draws.length) {
      result.dice.forEach((face, i) => {
        if (face >= result.difficulty) marks[i].hit = true;
        else if (face === 1) marks[i].one = true;
      });
    }
  }
  if (kind.startsWith("fabulae.") && Array.isArray(result.dice)) {
    const stress = Array.isArray(result.stress_dice) ? result.stress_dice : [];
    if (result.dice.length + stress.length === draws.length) {
      draws.forEach((draw, i) => {
        if (draw.face === 6) marks[i].hit = true;
        if (i >= result.dice.length) {
          marks[i].stress = true;
          if (draw.face === 1) marks[i].one = true;
        }
      });
    }
  }
  return marks;
}

/** One die: a rounded square, pips on a d6, the face as a number otherwise. */
export function drawDie(draw, mark = {}, t = (key) => key) {
  const box = svg("svg", { viewBox: "0 0 40 40", class: "die", role: "img" });
  const classes = ["die"];
  const notes = [];
  for (const flag of ["dropped", "hit", "one", "stress", "exploded"]) {
    if (mark[flag]) {
      classes.push(flag);
      notes.push(t(`die.${flag}`));
    }
  }
  box.setAttribute("class", classes.join(" "));
  box.setAttribute("data-face", String(draw.face));
  box.setAttribute("data-sides", String(draw.sides));
  const title = svg("title", {});
  title.textContent = `d${draw.sides}: ${draw.face}${notes.length ? ` (${notes.join(", ")})` : ""}`;
  box.append(title);
  box.append(svg("rect", { x: 2, y: 2, width: 36, height: 36, rx: 7, class: "die-body" }));
  if (draw.sides === 6 && PIPS[draw.face]) {
    for (const [col, row] of PIPS[draw.face]) {
      box.append(svg("circle", { cx: col * 10, cy: row * 10, r: 3.6, class: "pip" }));
    }
  } else {
    const text = svg("text", { x: 20, y: 21, class: "die-face" });
    text.textContent = String(draw.face);
    box.append(text);
  }
  if (mark.dropped) box.append(svg("line", { x1: 6, y1: 34, x2: 34, y2: 6, class: "strike" }));
  return box;
}

/** A row of dice for an entry's draws. */
export function drawDice(entry, t) {
  const row = document.createElement("div");
  row.className = "dice";
  const marks = diceMarks(entry);
  (entry.draws || []).forEach((draw, i) => row.append(drawDie(draw, marks[i], t)));
  return row;
}
