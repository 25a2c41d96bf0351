//! Token budgets, as loopctl 0.4.1 `compact.rs` counts them: what a turn's
//! payload costs, and whether it goes out, compacts first, or cannot fit.

mod counter;
mod plan;

pub(crate) use counter::chars;
pub use counter::{rendered_chars, Counter, TokenCounter};
pub use plan::{
    plan_turn, Action, Plan, Transient, TurnBudget, DEFAULT_THRESHOLD_PERCENT, TRANSIENTS,
};

#[cfg(test)]
mod tests;

/// The largest count reported: 2^53 - 1, which JS reads exactly.
pub const MAX_SAFE: u64 = (1 << 53) - 1;
