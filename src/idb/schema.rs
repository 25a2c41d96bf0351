//! Versioned, explicit migrations. A migration only creates or changes the
//! stores it names, so a host's own stores in the same database survive.

use idb::{Database, IndexParams, KeyPath, ObjectStoreParams};

/// The schema version this build writes.
pub const VERSION: u32 = 1;

pub const SESSIONS: &str = "sessions";
pub const SESSION_STATE: &str = "session_state";
pub const ACTIVITY_FRAMES: &str = "activity_frames";
pub const MESSAGES: &str = "messages";

/// Every store this schema creates: a database lacking one is not attache's.
pub const STORES: [&str; 4] = [SESSIONS, SESSION_STATE, ACTIVITY_FRAMES, MESSAGES];

/// `[sessionId, requestId]`: one request's frames, in append order.
pub const BY_REQUEST: &str = "by_request";
/// `sessionId`: all of a session's frames or messages, in append order.
pub const BY_SESSION: &str = "by_session";

/// Runs every migration above `old_version`, inside the upgrade transaction.
/// Public so tests can run it beside a host's own upgrade.
pub fn migrate(db: &Database, old_version: u32) -> Result<(), idb::Error> {
    if old_version < 1 {
        v1(db)?;
    }
    Ok(())
}

fn v1(db: &Database) -> Result<(), idb::Error> {
    // Bare: a polluted `unique` or `autoIncrement` at the first open would
    // be written into the schema for good.
    use super::bare;
    let store = || ObjectStoreParams::from(bare::<web_sys::IdbObjectStoreParameters>());
    let index = || Some(IndexParams::from(bare::<web_sys::IdbIndexParameters>()));
    let mut sessions = store();
    sessions.key_path(Some(KeyPath::new_single("id")));
    db.create_object_store(SESSIONS, sessions)?;

    let mut state = store();
    state.key_path(Some(KeyPath::new_array(["sessionId", "key"])));
    db.create_object_store(SESSION_STATE, state)?;

    // Auto-increment keys give one global append order across connections.
    // An activity_frames record is one append call's batch of frames.
    let mut appended = store();
    appended.auto_increment(true);
    let frames = db.create_object_store(ACTIVITY_FRAMES, appended.clone())?;
    frames.create_index(
        BY_REQUEST,
        KeyPath::new_array(["sessionId", "requestId"]),
        index(),
    )?;
    frames.create_index(BY_SESSION, KeyPath::new_single("sessionId"), index())?;

    let messages = db.create_object_store(MESSAGES, appended)?;
    messages.create_index(BY_SESSION, KeyPath::new_single("sessionId"), index())?;
    Ok(())
}
