// Bundled for the browser by tests/e2e/frameworks.test.mjs: an OpenAI
// Agents run() with a tool, its session in IndexedDB, so a reloaded page
// continues the conversation from what the first page stored.
import { Agent, run, tool } from "@openai/agents-core";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents-core/testing";
import { z } from "zod";
import { IdbSessionStore } from "../../../pkg/index.js";
import { AttacheSession } from "../../../pkg/openai-agents.js";

const weather = tool({
  name: "weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `3°C in ${city}`,
});

/** A turn of `sessionId` against `steps`, the model's scripted replies. */
async function turn(sessionId, input, steps) {
  const store = await IdbSessionStore.open({ name: "agents-e2e" });
  try {
    const model = new ScriptedModel(steps);
    const agent = new Agent({ name: "forecaster", model, tools: [weather] });
    const result = await run(agent, input, { session: new AttacheSession(store, { sessionId }) });
    const sent = model.lastCall.request.input;
    const roles = (await store.loadMessages(sessionId)).map((m) => m.role);
    return { output: result.finalOutput, sent: JSON.parse(JSON.stringify(sent)), roles };
  } finally {
    store.close();
  }
}

window.agentsRun = {
  first: (sessionId) => turn(sessionId, "Weather in Oslo?", [
    [functionCall("weather", { city: "Oslo" }, { callId: "call_oslo" })],
    [assistantMessage("It is 3°C in Oslo.")],
  ]),
  second: (sessionId) => turn(sessionId, "Which city did I ask about?", [[assistantMessage("Oslo.")]]),
};
document.body.dataset.ready = "true";
