import init, { AttachmentStore, isAttacheError } from "../pkg/attache.js";
import * as model from "./model.js";

await init();

const store = new AttachmentStore();
const todos = [
  { text: "read the pinned README", completed: true },
  { text: "answer with the auth design in mind", completed: false },
];
const history = [];
const $ = (id) => document.getElementById(id);

store.setAttachment({ kind: "memory", slug: "auth-design", memory: "Use Argon2id with RFC 9106 parameters; never bcrypt." });
store.setAttachment({ kind: "file", path: "README.md", contents: "# demo\n\nA project whose README is pinned inline." });
store.setAttachment({ kind: "file", path: "src/lib.rs" });
pinTodos();

function pinTodos() {
  // The todo list always pins as `todo:session`, so this replaces it in place.
  store.setAttachment({ kind: "todo", items: todos });
}

function attempt(action) {
  try {
    action();
    $("status").textContent = "";
  } catch (e) {
    $("status").textContent = isAttacheError(e) ? `${e.code}: ${e.message}` : String(e);
  }
  render();
}

function render() {
  $("model-name").textContent = model.name;
  $("pinned").replaceChildren(...store.attachmentIds().map((id) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = "Detach";
    button.onclick = () => attempt(() => store.detachAttachment(id));
    li.append(id, button);
    return li;
  }));
  $("todos").replaceChildren(...todos.map((item, i) => {
    const li = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = item.completed;
    box.onchange = () => attempt(() => { todos[i].completed = box.checked; pinTodos(); });
    li.append(box, ` ${item.text}`);
    return li;
  }));
  const message = store.consolidatedMessage();
  $("consolidated").textContent = message ? JSON.stringify(message, null, 2) : "(nothing pinned: no message is sent)";
  $("history").replaceChildren(...history.map((m) => {
    const li = document.createElement("li");
    li.className = m.role;
    li.textContent = `${m.role}: ${m.content.map((p) => p.text).join("")}`;
    return li;
  }));
}

function onSubmit(id, handler) {
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    attempt(() => handler(Object.fromEntries(new FormData(form))));
    form.reset();
  });
}

onSubmit("pin-memory", ({ slug, memory }) => store.setAttachment({ kind: "memory", slug, memory }));
onSubmit("pin-file", ({ path, contents }) => store.setAttachment({ kind: "file", path, contents: contents || null }));
onSubmit("add-todo", ({ text }) => { todos.push({ text, completed: false }); pinTodos(); });
onSubmit("chat", ({ text }) => {
  history.push({ role: "user", content: [{ type: "text", text }] });
  // Pinned context leads every request and never enters the history.
  const pinned = store.consolidatedMessage();
  const request = pinned ? [pinned, ...history] : [...history];
  history.push({ role: "assistant", content: [{ type: "text", text: model.respond(request) }] });
});

render();
document.body.dataset.ready = "true";
