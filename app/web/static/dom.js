// A small element builder: the page builds its DOM in code (no inline HTML strings, so no
// markup injection from what the log holds: every text goes in as text).
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

export function shortHash(hash) {
  return typeof hash === "string" ? `${hash.slice(0, 12)}…` : "";
}

// The marks the dice rendering puts in its sentences (`~~9~~` a dropped die, `**8**` a kept or
// counting one): `~~` and `**` pairs, nothing else of Markdown.
const MARKS = /~~(.+?)~~|\*\*(.+?)\*\*/g;

/** A sentence from the API as nodes: its marks as struck or bold text, the rest as text (never
 * parsed as HTML, so the log cannot inject markup). */
export function markedText(text) {
  const nodes = [];
  const source = String(text);
  let last = 0;
  for (const match of source.matchAll(MARKS)) {
    if (match.index > last) nodes.push(document.createTextNode(source.slice(last, match.index)));
    nodes.push(match[1] !== undefined ? el("s", { text: match[1] }) : el("strong", { text: match[2] }));
    last = match.index + match[0].length;
  }
  if (last < source.length) nodes.push(document.createTextNode(source.slice(last)));
  return nodes;
}
