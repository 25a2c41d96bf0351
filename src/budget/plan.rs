use crate::Error;

/// The compaction trigger when the host names none: 80% of the window.
pub const DEFAULT_THRESHOLD_PERCENT: u64 = 80;

/// What one turn costs, in tokens, and the window it must fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnBudget {
    pub context_window: u64,
    /// The compaction trigger, as a percentage of the window (1 to 100).
    pub threshold_percent: u64,
    pub history_tokens: u64,
    /// Per-request overhead such as tool schemas.
    pub overhead_tokens: u64,
    /// The consolidated attachment message, contributor messages and
    /// memory transients, counted together.
    pub transient_tokens: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Send,
    /// Compact the history under `history_budget` first.
    Compact {
        emergency: bool,
    },
    /// Transients and overhead alone reach the lower line: no compaction
    /// of the history can bring the payload under it.
    ContextExceeded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub action: Action,
    /// History plus overhead plus transients.
    pub payload_tokens: u64,
    pub history_tokens: u64,
    pub transient_tokens: u64,
    pub overhead_tokens: u64,
    pub threshold_tokens: u64,
    pub emergency_tokens: u64,
    /// Transients plus overhead: what every request carries besides history.
    pub reserve_tokens: u64,
    /// What the compactor should land the history at or under: loopctl's
    /// default compaction target, 15% of its threshold line, or the most
    /// history under the lower line when the reserve leaves less room.
    /// At or under it, the next plan sends. Zero when the context is
    /// exceeded.
    pub history_budget: u64,
}

/// Decides a turn as the reference loop does: compact at or over the
/// threshold, or at or over 95% of the window (the emergency line). The
/// lines are exact percentages, where loopctl rounds them down and
/// compacts only over its threshold.
pub fn plan_turn(budget: TurnBudget) -> Result<Plan, Error> {
    if !(1..=100).contains(&budget.threshold_percent) {
        return Err(Error::InvalidArgument {
            field: "thresholdPercent".to_owned(),
            reason: format!("must be from 1 to 100, got {}", budget.threshold_percent),
        });
    }
    let window = budget.context_window;
    if window == 0 {
        // Nothing fits a window of 0 tokens, so no plan could be followed.
        return Err(Error::argument("contextWindow", "must be at least 1 token"));
    }
    // Rounded up, so "at or over 80%" means it: 799 of 999 is under.
    let threshold_tokens = window
        .saturating_mul(budget.threshold_percent)
        .div_ceil(100);
    let emergency_tokens = window.saturating_mul(19).div_ceil(20);
    let reserve_tokens = budget
        .transient_tokens
        .saturating_add(budget.overhead_tokens);
    let payload_tokens = budget.history_tokens.saturating_add(reserve_tokens);
    // Reported at most 2^53 - 1, which JS reads exactly; decided on whole.
    let safe = |n: u64| n.min(super::MAX_SAFE);
    let lower = threshold_tokens.min(emergency_tokens);
    // Compacting then would empty the history every turn, and loopctl
    // ends such a run as exceeded once there is nothing left to drop.
    let action = if reserve_tokens >= lower {
        Action::ContextExceeded
    } else if payload_tokens >= emergency_tokens {
        Action::Compact { emergency: true }
    } else if payload_tokens >= threshold_tokens {
        Action::Compact { emergency: false }
    } else {
        Action::Send
    };
    Ok(Plan {
        action,
        payload_tokens: safe(payload_tokens),
        history_tokens: budget.history_tokens,
        transient_tokens: budget.transient_tokens,
        overhead_tokens: budget.overhead_tokens,
        threshold_tokens,
        emergency_tokens,
        reserve_tokens: safe(reserve_tokens),
        history_budget: match action {
            Action::ContextExceeded => 0,
            // loopctl's `compact_target_tokens()`, which is history only;
            // capped so that landing on it ends the compaction here.
            _ => (window.saturating_mul(budget.threshold_percent) / 100 * 15 / 100)
                .min(lower - reserve_tokens - 1),
        },
    })
}

impl Action {
    /// The action as hosts see it: its name, and whether it is the
    /// emergency compaction.
    pub fn name(self) -> (&'static str, bool) {
        match self {
            Action::Send => ("send", false),
            Action::Compact { emergency } => ("compact", emergency),
            Action::ContextExceeded => ("context_exceeded", false),
        }
    }
}

/// What a turn's transients are, in the order they ride and are counted:
/// the consolidated attachment message, then contributor messages, then
/// memory transients, counted as one list, since counters round per list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transient {
    Attachments,
    Contributors,
    Memories,
}

pub const TRANSIENTS: [Transient; 3] = [
    Transient::Attachments,
    Transient::Contributors,
    Transient::Memories,
];
