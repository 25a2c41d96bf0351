// A server-side test as a Node user writes one: the package's default
// entry, MemorySessionStore (Node has no IndexedDB).
import * as attache from "attache";
import { scenario } from "./scenario.js";

console.log(JSON.stringify(await scenario(attache, { persistent: false })));
