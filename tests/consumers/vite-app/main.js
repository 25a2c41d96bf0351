import * as attache from "attache";
import { report } from "./page.js";

await report(attache);
