// i18n.js owns the page's words in 中文 and English: the language (the browser's, or the one the switch chose) and t().

const WORDS = {
  zh: {
    title: "工具调用 Agent",
    signInTitle: "登录",
    keyLabel: "API Key",
    keyHint: "在项目目录里用 .venv/bin/python main.py keys add 名字 生成。Key 只保存在这个标签页的会话存储里。",
    signIn: "登录",
    signOut: "退出",
    switchTo: "English",
    switchLabel: "Switch to English",
    conversations: "对话",
    newConversation: "新对话",
    noConversations: "还没有对话",
    untitled: "（无标题）",
    log: "对话内容",
    messageLabel: "消息",
    placeholder: "输入消息：Enter 发送，Shift+Enter 换行",
    send: "发送",
    you: "你",
    agent: "Agent",
    running: "运行中…",
    ok: "✓ 成功",
    failed: "✗ 失败",
    notRun: "未运行",
    awaiting: "等待批准",
    arguments: "参数",
    result: "结果",
    error: "错误",
    approvalNeeded: "这个调用只有在你批准后才会运行：",
    approve: "批准",
    refuse: "拒绝",
    approved: "你批准了这个调用。",
    refused: "你拒绝了这个调用。",
    errNetwork: "连不上服务器：请确认它在运行，然后重试。",
    errUnauthorized: "这个 Key 不被接受（未知或已吊销），请重新登录。",
    errRateLimited: "请求太频繁，请 {seconds} 秒后重试。",
    errDeadline: "这一轮超过了时限，已停止：{message}",
    errCutOff: "连接中断了，回答不完整。",
    errServer: "服务器返回 {status}：{message}",
    errRun: "这一轮失败了（{code}）：{message}",
    canDo: "我可以：",
    tryThese: "试试这些：",
    example1: "把机型 CPH2223 添加到数据库",
    example2: "数据库里有 CPH2223 吗？",
    example3: "现在几点了？",
  },
  en: {
    title: "Tool Use Agent",
    signInTitle: "Sign in",
    keyLabel: "API key",
    keyHint: "Make one in the project folder with .venv/bin/python main.py keys add NAME. The key is kept in this tab's session storage only.",
    signIn: "Sign in",
    signOut: "Sign out",
    switchTo: "中文",
    switchLabel: "切换到中文",
    conversations: "Conversations",
    newConversation: "New conversation",
    noConversations: "No conversations yet",
    untitled: "(untitled)",
    log: "The conversation",
    messageLabel: "Message",
    placeholder: "Type a message: Enter sends, Shift+Enter starts a new line",
    send: "Send",
    you: "You",
    agent: "Agent",
    running: "running…",
    ok: "✓ ok",
    failed: "✗ failed",
    notRun: "not run",
    awaiting: "awaiting approval",
    arguments: "Arguments",
    result: "Result",
    error: "Error",
    approvalNeeded: "This call runs only if you approve it:",
    approve: "Approve",
    refuse: "Refuse",
    approved: "You approved this call.",
    refused: "You refused this call.",
    errNetwork: "Cannot reach the server: check that it is running, then try again.",
    errUnauthorized: "This key was not accepted (unknown or revoked); sign in again.",
    errRateLimited: "Too many requests; try again in {seconds} s.",
    errDeadline: "This turn ran past its deadline and was stopped: {message}",
    errCutOff: "The connection broke off; the answer is incomplete.",
    errServer: "The server answered {status}: {message}",
    errRun: "This turn failed ({code}): {message}",
    canDo: "I can:",
    tryThese: "Try one of these:",
    example1: "Add the model CPH2223 to the database",
    example2: "Is CPH2223 in the database?",
    example3: "What time is it?",
  },
};
const CHOICE = "agent-page-language";
let current = localStorage.getItem(CHOICE) || (navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en");

export function language() {
  return current;
}

export function setLanguage(lang) {
  current = lang === "zh" ? "zh" : "en";
  localStorage.setItem(CHOICE, current);
}

/** The words for `key` in the current language, `{name}` filled from `values`. */
export function t(key, values = {}) {
  const text = WORDS[current][key] ?? WORDS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** Put the current language's words into the page's fixed elements (data-i18n and its kin). */
export function translate(root = document) {
  document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
}
