use wasm_bindgen::prelude::*;

// Precise types for the values that cross the boundary as JsValue.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** `memory:{slug}`: a fact that must stay visible. */
export interface MemorySpec { kind: "memory"; slug: string; memory: string }
/** `file:{path}`: path only when `contents` is absent or null. Inline contents
 * past 8192 UTF-8 bytes are cut unless `truncate` is false. */
export interface FileSpec { kind: "file"; path: string; contents?: string | null; truncate?: boolean }
export interface TodoItem { text: string; completed: boolean }
/** `todo:session`: the live task list. */
export interface TodoSpec { kind: "todo"; items: TodoItem[] }
/** Host-rendered: `text` is sent verbatim, ranked with `rank`'s kind. */
export interface CustomSpec { kind: "custom"; id: `${string}:${string}`; rank: AttachmentKind; text: string }
export type AttachmentKind = "memory" | "file" | "todo";
export type AttachmentSpec = MemorySpec | FileSpec | TodoSpec | CustomSpec;

export interface TextPart { type: "text"; text: string }
/** One all-text user message carrying every pinned attachment. */
export interface ConsolidatedMessage { role: "user"; content: TextPart[] }

export type AttacheErrorCode = "UNKNOWN_KIND" | "INVALID_SPEC" | "INVALID_ID";
export interface AttacheError extends Error {
  name: "AttacheError";
  code: AttacheErrorCode;
  /** The spec field at fault, such as `items[2].text`. */
  field?: string;
}
"#;
