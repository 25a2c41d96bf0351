// Options as a host under exactOptionalPropertyTypes writes them: null is
// an option left out, as the README says, and a format of undefined or
// null is still the generic overload.
import { AttachmentStore, buildRequest, planTurn, type GenericRequest, type Message } from "attache";

const history: Message[] = [{ role: "user", content: "hi" }];
const leftOut: GenericRequest = buildRequest({ history, format: null, system: null, cacheControl: null, reasoningContent: null });
const undefinedFormat: GenericRequest = buildRequest({ history, format: undefined, contributors: null, memories: null });
planTurn({ contextWindow: 1000, history, thresholdPercent: null, overheadTokens: null, counter: null });
new AttachmentStore().checkPrefix({ provider: null, model: null, minTokens: null, counter: null });
console.log(leftOut, undefinedFormat);
