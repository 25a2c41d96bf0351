// Nothing attache-specific: the default entry inlines the wasm and
// initialises it synchronously.
import { fileURLToPath } from "node:url";

export default {
  entry: "./src/main.js",
  output: { path: fileURLToPath(new URL("./dist", import.meta.url)), filename: "main.js", clean: true },
};
