// app.js owns the page's flow: signing in with a key (session storage, never a URL), the person's
// conversations, sending a message as an AG-UI run and drawing its events, approvals, and errors as one line.
import { ApiError, CutOff, Unreachable, getJson, newId, runAgent } from "./api.js";
import { language, setLanguage, t, translate } from "./i18n.js";
import { answer, askApproval, dropApprovals, said, showArguments, showNotRun, showResult, toolCard } from "./log.js";
import { dropWelcome, showWelcome, welcomeShown } from "./welcome.js";

const $ = (id) => document.getElementById(id);
const KEY = "agent-key";
const page = {
  key: sessionStorage.getItem(KEY),
  threadId: null,
  conversationId: null,
  cards: new Map(),
  about: null, // what the agent can do, and the model's notice (GET /about): the empty state's
  running: false, // a run is streaming: nothing else starts until it ends
  opening: 0, // which conversation load is the latest (an older one that answers late is dropped)
};

function showStatus(text) {
  $("status").textContent = text;
  $("status").hidden = !text;
}

/** What went wrong, as one line in the page; a refused key signs the person out. */
function report(error) {
  if (error instanceof ApiError && error.status === 401) {
    signOut();
    return showStatus(t("errUnauthorized"));
  }
  if (error instanceof ApiError && error.status === 429) {
    return showStatus(t("errRateLimited", { seconds: error.retryAfter ?? 1 }));
  }
  if (error instanceof ApiError) return showStatus(t("errServer", { status: error.status, message: error.message }));
  if (error instanceof Unreachable) return showStatus(t("errNetwork"));
  if (error instanceof CutOff) return showStatus(t("errCutOff"));
  showStatus(String(error));
  console.error(error); // a bug of the page's
}

function setSignedIn(signedIn) {
  $("signin").hidden = signedIn;
  $("chat").hidden = $("signout").hidden = $("menu").hidden = !signedIn;
}

// --- signing in -------------------------------------------------------------------------------------

async function signIn(key) {
  showStatus("");
  try {
    const listing = await getJson("/conversations", key);
    page.about = await getJson("/about", key);
    page.key = key;
    sessionStorage.setItem(KEY, key);
    $("who").textContent = listing.user;
    showThreads(listing.conversations);
    startNew(); // the conversation has its thread before the chat shows: a message sent at once has one
    setSignedIn(true);
    $("message").focus();
  } catch (error) {
    report(error);
  }
}

function signOut() {
  sessionStorage.removeItem(KEY);
  page.key = null;
  setSignedIn(false);
  $("who").textContent = "";
  $("key").value = "";
  $("key").focus();
}

// --- conversations ----------------------------------------------------------------------------------

function showThreads(conversations) {
  const items = conversations.map((conversation) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "thread";
    const when = new Date(conversation.updatedAt * 1000).toLocaleString(language() === "zh" ? "zh-CN" : "en");
    const title = document.createElement("span");
    title.textContent = conversation.title || t("untitled");
    const time = document.createElement("small");
    time.textContent = when;
    button.append(title, time);
    if (conversation.id === page.conversationId) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => openConversation(conversation.id));
    const item = document.createElement("li");
    item.append(button);
    return item;
  });
  if (!items.length) items.push(Object.assign(document.createElement("li"), { textContent: t("noConversations") }));
  $("threads").replaceChildren(...items);
}

async function refreshThreads() {
  try {
    showThreads((await getJson("/conversations", page.key)).conversations);
  } catch (error) {
    report(error);
  }
}

function startNew() {
  page.threadId = newId("page");
  page.conversationId = null;
  page.cards.clear();
  showWelcome($("log"), page.about, (text) => {
    $("message").value = text;
    send();
  });
  for (const button of document.querySelectorAll(".thread")) button.removeAttribute("aria-current");
  closeMenu();
  $("message").focus();
}

async function openConversation(id) {
  showStatus("");
  const opening = ++page.opening;
  try {
    const conversation = await getJson(`/conversations/${encodeURIComponent(id)}`, page.key);
    if (opening !== page.opening) return; // another conversation was chosen meanwhile
    startNew();
    page.threadId = conversation.threadId;
    page.conversationId = conversation.id;
    if (conversation.messages.length) dropWelcome($("log"));
    for (const message of conversation.messages) drawStored(message);
    const pending = conversation.pending;
    if (pending && page.cards.has(pending.tool_call_id)) {
      ask(page.cards.get(pending.tool_call_id), pending.id, pending.name, pending.arguments);
    }
    await refreshThreads();
  } catch (error) {
    report(error);
  }
}

function drawStored(message) {
  if (message.role === "user") said($("log"), message.text);
  if (message.role === "assistant") answer($("log")).show(message.text);
  if (message.role !== "tool") return;
  const card = toolCard($("log"), message.id, message.name);
  page.cards.set(message.id, card);
  showArguments(card, message.arguments);
  if (message.result) showResult(card, message.result, message.durationMs ?? undefined);
  else showNotRun(card);
}

// --- a run ------------------------------------------------------------------------------------------

/** Draws one run's AG-UI events in the log as they arrive. */
class Run {
  constructor(threadId) {
    this.threadId = threadId;
    this.text = null;
    this.args = new Map();
  }

  on(event) {
    if (page.threadId !== this.threadId) return; // the person went to another conversation meanwhile
    const log = $("log");
    const card = page.cards.get(event.toolCallId);
    switch (event.type) {
      case "TEXT_MESSAGE_START":
        this.text = answer(log);
        break;
      case "TEXT_MESSAGE_CONTENT":
        this.text.text += event.delta;
        this.text.show(this.text.text);
        break;
      case "TOOL_CALL_START":
        page.cards.set(event.toolCallId, toolCard(log, event.toolCallId, event.toolCallName));
        this.args.set(event.toolCallId, "");
        break;
      case "TOOL_CALL_ARGS":
        this.args.set(event.toolCallId, this.args.get(event.toolCallId) + event.delta);
        break;
      case "TOOL_CALL_END":
        showArguments(card, this.args.get(event.toolCallId));
        break;
      case "TOOL_CALL_RESULT":
        if (card) showResult(card, JSON.parse(event.content), event.metadata?.durationMs);
        break;
      case "RUN_FINISHED":
        this.finished(event);
        break;
      case "RUN_ERROR":
        showStatus(event.code === "deadline_exceeded" ? t("errDeadline", event) : t("errRun", event));
        break;
    }
  }

  finished(event) {
    page.conversationId = event.result?.conversation_id ?? page.conversationId;
    for (const interrupt of event.outcome?.type === "interrupt" ? event.outcome.interrupts : []) {
      const card = page.cards.get(interrupt.toolCallId);
      if (!card) continue; // no card to ask in: the answer's text asks
      if (this.text?.text === interrupt.message) this.text.remove(); // the card asks instead
      ask(card, interrupt.id, interrupt.metadata?.name, interrupt.metadata?.arguments);
    }
  }
}

function ask(card, interruptId, name, args) {
  askApproval(card, name, args, (approved) =>
    go({ resume: [{ interruptId, status: "resolved", payload: { approved } }] }),
  );
}

/** Start a run, unless one is under way (then false). */
function go(input) {
  if (page.running) return false;
  runTurn(input);
  return true;
}

async function runTurn(input) {
  showStatus("");
  setBusy(true);
  const run = new Run(page.threadId);
  try {
    await runAgent(page.key, { threadId: run.threadId, runId: newId("run"), ...input }, (e) => run.on(e));
  } catch (error) {
    report(error);
  } finally {
    setBusy(false);
    if (page.key) await refreshThreads();
    if (!document.querySelector(".approval")) $("message").focus();
  }
}

function setBusy(busy) {
  page.running = busy;
  $("send").disabled = busy;
  $("log").setAttribute("aria-busy", String(busy));
  document.body.classList.toggle("busy", busy);
}

function send() {
  const text = $("message").value.trim();
  if (!text || page.running || !page.threadId) return; // not signed in yet, or a run is under way
  $("message").value = "";
  dropApprovals($("log")); // a new message answers an open question with no: the server cancels that call
  dropWelcome($("log"));
  said($("log"), text);
  go({ messages: [{ id: newId("msg"), role: "user", content: text }] });
}

// --- the page's controls ----------------------------------------------------------------------------

function showLanguage() {
  translate();
  $("lang").textContent = t("switchTo");
  $("lang").setAttribute("aria-label", t("switchLabel"));
  $("lang").lang = language() === "zh" ? "en" : "zh-CN";
}

function closeMenu() {
  document.body.classList.remove("menu-open");
  $("menu").setAttribute("aria-expanded", "false");
}

$("signin-form").addEventListener("submit", (event) => {
  event.preventDefault();
  signIn($("key").value.trim());
});
$("signout").addEventListener("click", () => {
  signOut();
  showStatus("");
});
$("lang").addEventListener("click", () => {
  setLanguage(language() === "zh" ? "en" : "zh");
  showLanguage();
  if (welcomeShown($("log"))) startNew();
  if (page.key) refreshThreads();
});
$("new").addEventListener("click", startNew);
$("menu").addEventListener("click", () => {
  const open = document.body.classList.toggle("menu-open");
  $("menu").setAttribute("aria-expanded", String(open));
});
$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeMenu();
});

showLanguage();
if (page.key) signIn(page.key);
else $("key").focus();
