// Nothing attache-specific: webpack 5 handles top-level await by default.
import { fileURLToPath } from "node:url";

export default {
  entry: "./src/main.js",
  output: { path: fileURLToPath(new URL("./dist", import.meta.url)), filename: "main.js", clean: true },
};
