// api.js owns talking to the served agent: JSON reads and AG-UI runs (POST /agui, read as server-sent events)
// with the Bearer key, and what went wrong, as an error the page can name (ApiError, Unreachable, CutOff).

/** The server answered with an error (OpenAI's shape: {error: {message, code}}). */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** No answer at all: the server is down, or the network is. */
export class Unreachable extends Error {}

/** A run's stream ended before the run did. */
export class CutOff extends Error {}

async function call(method, path, key, body) {
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json, text/event-stream" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new Unreachable(String(error));
  }
  if (!response.ok) throw await apiError(response);
  return response;
}

async function apiError(response) {
  const said = await response.json().catch(() => ({}));
  const error = said.error || {};
  const retryAfter = Number(response.headers.get("Retry-After")) || null;
  return new ApiError(response.status, error.code || "", error.message || response.statusText, retryAfter);
}

export async function getJson(path, key) {
  return (await call("GET", path, key)).json();
}

/** A random id (crypto.randomUUID needs a secure context; a page served on a LAN address is not one). */
export function newId(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Run the agent once: POST a RunAgentInput, hand each AG-UI event to `onEvent` as it arrives. */
export async function runAgent(key, input, onEvent) {
  const response = await call("POST", "/agui", key, {
    state: {}, tools: [], context: [], forwardedProps: {}, messages: [], ...input,
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ended = false;
  const deliver = (block) => {
    const event = parseEvent(block);
    if (!event) return;
    ended ||= event.type === "RUN_FINISHED" || event.type === "RUN_ERROR";
    onEvent(event);
  };
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        break; // the connection dropped mid-stream
      }
      if (chunk.done) break;
      // events end at a blank line, whichever line ends a proxy chose (a lone \r may await its \n)
      buffer = (buffer + chunk.value).replace(/\r\n|\r(?!$)/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        deliver(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
      }
    }
    deliver(buffer.replace(/\r$/, "")); // a last event without its blank line
  } finally {
    reader.cancel().catch(() => {});
  }
  if (!ended) throw new CutOff("the stream ended before the run did");
}

function parseEvent(block) {
  const data = block
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart())
    .join("\n");
  return data ? JSON.parse(data) : null;
}
