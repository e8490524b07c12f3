// welcome.js owns the empty conversation: what the agent can do (a line per tool, from GET /about), three
// example requests (a click sends one), and the model's notice when the embedded demo model answers.
import { language, t } from "./i18n.js";

const EXAMPLES = ["example1", "example2", "example3"];

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Fill `log` with the welcome, in the current language; `onPick(text)` sends an example. */
export function showWelcome(log, about, onPick) {
  const item = el("li", "welcome");
  const notice = about?.notice?.[language()];
  if (notice) item.append(el("p", "demo-notice", notice));
  item.append(el("h2", "", t("canDo")));
  const tools = el("ul", "capabilities");
  for (const tool of about?.tools ?? []) tools.append(el("li", "", tool.summary[language()] || tool.name));
  item.append(tools, el("h2", "", t("tryThese")));
  const examples = el("div", "examples");
  for (const key of EXAMPLES) {
    const button = el("button", "example", t(key));
    button.type = "button";
    button.addEventListener("click", () => onPick(t(key)));
    examples.append(button);
  }
  item.append(examples);
  log.replaceChildren(item);
}

/** The welcome goes once the conversation has something in it. */
export function dropWelcome(log) {
  for (const node of log.querySelectorAll(".welcome")) node.remove();
}

export function welcomeShown(log) {
  return log.querySelector(".welcome") !== null;
}
