// markdown.js owns drawing an answer's Markdown: a small subset (paragraphs, headings, lists, quotes, code,
// emphasis) built as DOM nodes whose text is set with textContent, so no HTML in the text is ever parsed.

const FENCE = /^\s*```/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const BLANK = /^\s*$/;
const INLINE = /(`+)([\s\S]+?)\1|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*(?=\S)([\s\S]+?)\*|\b_(?=\S)([\s\S]+?)_\b/g;

function element(tag, ...children) {
  const node = document.createElement(tag);
  node.append(...children);
  return node;
}

/** Text with `code`, **strong** and *emphasis*, appended to `parent` as text nodes and elements. */
function inline(parent, text) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    parent.append(document.createTextNode(text.slice(last, match.index)));
    const [, ticks, code, strong, strong2, em, em2] = match;
    if (ticks) {
      const node = element("code");
      node.textContent = code;
      parent.append(node);
    } else {
      const node = element(strong || strong2 ? "strong" : "em");
      inline(node, strong || strong2 || em || em2);
      parent.append(node);
    }
    last = match.index + match[0].length;
  }
  parent.append(document.createTextNode(text.slice(last)));
  return parent;
}

function paragraph(lines) {
  const node = element("p");
  lines.forEach((line, i) => {
    if (i > 0) node.append(element("br"));
    inline(node, line);
  });
  return node;
}

function isBlockStart(line) {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || NUMBERED.test(line) || QUOTE.test(line);
}

/** The lines from `i` on that match `pattern`, each reduced to its first group; and where they stop. */
function run(lines, i, pattern) {
  const items = [];
  while (i < lines.length && pattern.test(lines[i])) items.push(pattern.exec(lines[i++])[1]);
  return [items, i];
}

/** `source` as a DocumentFragment of safe nodes. */
export function renderMarkdown(source) {
  const out = document.createDocumentFragment();
  const lines = String(source).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (BLANK.test(line)) {
      i++;
    } else if (FENCE.test(line)) {
      const end = lines.findIndex((l, j) => j > i && FENCE.test(l));
      const stop = end === -1 ? lines.length : end;
      const code = element("code");
      code.textContent = lines.slice(i + 1, stop).join("\n");
      out.append(element("pre", code));
      i = stop + 1;
    } else if (HEADING.test(line)) {
      const [, hashes, text] = HEADING.exec(line);
      out.append(inline(element(`h${Math.min(hashes.length + 2, 6)}`), text));
      i++;
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const pattern = BULLET.test(line) ? BULLET : NUMBERED;
      const [items, next] = run(lines, i, pattern);
      out.append(element(pattern === BULLET ? "ul" : "ol", ...items.map((item) => inline(element("li"), item))));
      i = next;
    } else if (QUOTE.test(line)) {
      const [items, next] = run(lines, i, QUOTE);
      out.append(element("blockquote", paragraph(items)));
      i = next;
    } else {
      const start = i;
      while (i < lines.length && !BLANK.test(lines[i]) && (i === start || !isBlockStart(lines[i]))) i++;
      out.append(paragraph(lines.slice(start, i)));
    }
  }
  return out;
}
