// vitest runs the framework adapters' suites (tests/adapters); everything
// else uses node --test. LangGraph's validation suite expects globals.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/adapters/**/*.test.mjs"],
    globals: true,
    environment: "node",
    testTimeout: 30_000,
  },
});
