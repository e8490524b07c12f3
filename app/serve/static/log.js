// log.js owns what the conversation log shows: the person's words, the answers (Markdown), a card per tool
// call — name, arguments, result or error, duration, as the terminal's panels — and a call's approval.
// Every piece of text goes in through textContent; words marked data-i18n follow the language switch.
import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function word(tag, className, key) {
  const node = el(tag, className, t(key));
  node.dataset.i18n = key;
  return node;
}

function entry(log, kind, ...children) {
  const item = el("li", `entry ${kind}`);
  item.append(...children);
  log.append(item);
  item.scrollIntoView({ block: "nearest" });
  return item;
}

export function said(log, text) {
  return entry(log, "person", word("span", "who", "you"), el("p", "words", text));
}

/** An answer's entry; `answer.show(text)` draws the text so far. */
export function answer(log) {
  const body = el("div", "markdown");
  const item = entry(log, "answer", word("span", "who", "agent"), body);
  item.show = (text) => {
    body.replaceChildren(renderMarkdown(text));
    item.scrollIntoView({ block: "nearest" });
  };
  item.text = "";
  return item;
}

function pretty(json) {
  try {
    const value = typeof json === "string" ? JSON.parse(json) : json;
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  } catch {
    return String(json);
  }
}

/** A tool call's card: 🔧 name, then its arguments, result and duration as they come. */
export function toolCard(log, id, name) {
  const head = el("div", "tool-head");
  const status = word("span", "tool-status running", "running");
  head.append(el("span", "tool-name", `🔧 ${name}`), status, el("span", "tool-time"));
  const card = entry(log, "tool", head);
  card.dataset.toolCall = id;
  card.status = status;
  return card;
}

function setStatus(card, key, className) {
  card.status.className = `tool-status ${className}`;
  card.status.dataset.i18n = key;
  card.status.textContent = t(key);
}

export function showArguments(card, args) {
  const box = el("pre", "tool-args", pretty(args || "{}"));
  box.dataset.i18nLabel = "arguments";
  box.setAttribute("aria-label", t("arguments"));
  card.querySelector(".tool-head").after(box);
}

/** The call's result envelope ({ok, data} or {ok: false, error}); `ms`: how long it ran, if the server said. */
export function showResult(card, envelope, ms) {
  card.querySelector(".approval")?.remove();
  const ok = envelope && envelope.ok === true;
  setStatus(card, ok ? "ok" : "failed", ok ? "ok" : "failed");
  if (ms !== undefined) card.querySelector(".tool-time").textContent = `${Math.round(ms)} ms`;
  const shown = ok ? envelope.data : (envelope?.error ?? envelope);
  const box = el("pre", ok ? "tool-result" : "tool-result tool-error", pretty(shown));
  box.dataset.i18nLabel = ok ? "result" : "error";
  box.setAttribute("aria-label", t(box.dataset.i18nLabel));
  card.querySelector(".tool-result")?.remove();
  card.append(box);
}

export function showNotRun(card) {
  setStatus(card, "notRun", "failed");
}

/** The questions still open in `log` are void (the person said something else): each call is not run. */
export function dropApprovals(log) {
  for (const box of log.querySelectorAll(".approval")) {
    const card = box.closest(".tool");
    box.remove();
    showNotRun(card);
  }
}

// Characters that change how text reads without showing themselves (direction overrides, zero widths):
// in a call the person approves they are shown as \u escapes, so what they read is what will run.
const HIDDEN = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

function visible(text) {
  return text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Ask the person about the exact call. `decide(approved)` answers true when the answer was taken (false:
 * busy with another run; the question stays). */
export function askApproval(card, name, args, decide) {
  setStatus(card, "awaiting", "awaiting");
  const box = el("div", "approval");
  box.setAttribute("role", "group");
  box.tabIndex = -1;
  const question = word("p", "approval-question", "approvalNeeded");
  question.id = `ask-${card.dataset.toolCall}`;
  box.setAttribute("aria-labelledby", question.id);
  const approve = word("button", "approve", "approve");
  const refuse = word("button", "refuse", "refuse");
  for (const [button, approved] of [[approve, true], [refuse, false]]) {
    button.type = "button";
    button.addEventListener("click", () => {
      if (!decide(approved)) return;
      box.replaceWith(word("p", "decision", approved ? "approved" : "refused"));
      setStatus(card, approved ? "running" : "notRun", approved ? "running" : "failed");
    });
  }
  const buttons = el("div", "approval-buttons");
  buttons.append(approve, refuse);
  box.append(question, el("pre", "approval-call", visible(`${name}(${JSON.stringify(args)})`)), buttons);
  card.append(box);
  box.scrollIntoView({ block: "nearest" });
  box.focus();
}
