use crate::json;
use crate::json::Value;

use super::*;

fn text(t: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": t}]})
}

fn count(counter: Counter, messages: &[Value]) -> u64 {
    counter.count(messages).expect("countable")
}

#[test]
fn the_heuristic_adds_twenty_chars_per_message_then_divides_by_four() {
    assert_eq!(
        count(Counter::Heuristic, &[text("hello")]),
        6,
        "(5 + 20) / 4 = 6.25"
    );
    assert_eq!(
        count(Counter::Heuristic, &[text("hello"), text("")]),
        11,
        "(25 + 20) / 4 = 11.25"
    );
}

#[test]
fn an_empty_message_still_costs_its_overhead() {
    let empty = json!({"role": "user", "content": []});
    assert_eq!(
        count(Counter::Heuristic, std::slice::from_ref(&empty)),
        5,
        "20 / 4"
    );
    assert_eq!(
        count(Counter::named("anthropic").unwrap(), &[empty]),
        5,
        "the per-message overhead alone"
    );
    assert_eq!(count(Counter::Heuristic, &[]), 0, "no messages, no tokens");
}

#[test]
fn characters_are_unicode_scalar_values_not_bytes_or_graphemes() {
    assert_eq!(
        count(Counter::Heuristic, &[text("中文字")]),
        5,
        "3 chars (9 bytes): 23 / 4"
    );
    assert_eq!(
        count(Counter::Heuristic, &[text("👩‍💻👩‍💻👩‍💻👩‍💻")]),
        8,
        "4 graphemes of 3 scalars: 32 / 4"
    );
    assert_eq!(
        count(Counter::Heuristic, &[text("e\u{301}e\u{301}")]),
        6,
        "combining marks count: 24 / 4"
    );
}

#[test]
fn ratio_presets_divide_exactly_and_add_their_overhead_per_message() {
    let forty_three = text(&"a".repeat(43));
    assert_eq!(
        count(Counter::named("openai").unwrap(), &[forty_three]),
        14,
        "43 / 4.3 + 4"
    );
    assert_eq!(
        count(Counter::named("anthropic").unwrap(), &[text("0123456789")]),
        7,
        "10 / 3.6 + 5 = 7.78"
    );
    assert_eq!(
        count(Counter::named("gemini").unwrap(), &[text(&"é".repeat(81))]),
        24,
        "81 / 4.05 + 4"
    );
    assert_eq!(
        count(Counter::named("local").unwrap(), &[text("中"), text("文")]),
        8,
        "2 / 3.8 + 8 = 8.5"
    );
}

#[test]
fn a_custom_ratio_is_read_as_the_decimal_it_prints_as() {
    assert_eq!(
        Counter::ratio(3.7, 2).unwrap(),
        Counter::Ratio {
            num: 37,
            den: 10,
            per_message: 2
        }
    );
    assert_eq!(
        Counter::ratio(4.0, 0).unwrap(),
        Counter::Ratio {
            num: 4,
            den: 1,
            per_message: 0
        }
    );
    assert_eq!(
        Counter::ratio(0.1 + 0.2, 4).unwrap(),
        Counter::Ratio {
            num: 3,
            den: 10,
            per_message: 4
        },
        "f32 precision, as the reference: 0.30000000000000004 is 0.3"
    );
    for bad in [
        0.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        1e-19,
        0.0099,
        10_001.0,
        1e16,
    ] {
        assert_eq!(
            Counter::ratio(bad, 4).unwrap_err().code(),
            "INVALID_ARGUMENT",
            "{bad}"
        );
    }
    // Both ends of the range: exact decimals, whatever f32 makes of them.
    for (ratio, num, den) in [
        (0.01, 1, 100),
        (10_000.0, 10_000, 1),
        (0.012_345_678, 12_345_678, 1_000_000_000),
    ] {
        assert_eq!(
            Counter::ratio(ratio, 0).unwrap(),
            Counter::Ratio {
                num,
                den,
                per_message: 0
            },
            "{ratio}"
        );
    }
    // The most a count says is 2^53 - 1, which JS reads exactly.
    let most = Counter::ratio(0.01, u64::MAX).unwrap();
    assert_eq!(most.count_chars(&[u64::MAX, 1]), (1 << 53) - 1);
    assert_eq!(Counter::Heuristic.count_chars(&[u64::MAX]), (1 << 53) - 1);
    // A large per-message overhead counts whole, up to that most.
    let heavy = Counter::ratio(3.333_333_3, 1_000_000_000_000).unwrap();
    assert_eq!(heavy.count_chars(&[0]), 1_000_000_000_000);
    let heaviest = Counter::ratio(9_999.999, (1 << 53) - 1).unwrap();
    assert_eq!(heaviest.count_chars(&[0]), (1 << 53) - 1);
    assert_eq!(heaviest.count_chars(&[0, 0]), (1 << 53) - 1);
}

#[test]
fn images_tool_calls_and_tool_results_count_as_the_reference_renders_them() {
    let image = json!({"role": "user", "content": [{"type": "image", "url": "https://x/y.png"}]});
    assert_eq!(count(Counter::Heuristic, &[image]), 69, "(256 + 20) / 4");
    let call = json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "x"}}]});
    assert_eq!(
        count(Counter::Heuristic, &[call]),
        8,
        "search plus its arguments' JSON is 15 chars: 35 / 4"
    );
    let result = json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c1", "content": [{"type": "text", "text": "ok"}, {"type": "image", "data": "AA==", "mediaType": "image/png"}]}]});
    assert_eq!(
        count(Counter::Heuristic, &[result]),
        69,
        "2 + 256 + 20 = 278 / 4"
    );
    let thinking = json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "sig"}]});
    assert_eq!(
        count(Counter::Heuristic, &[thinking]),
        5,
        "3 + 20 = 23 / 4; the signature is not text"
    );
    assert_eq!(
        count(
            Counter::Heuristic,
            &[json!({"role": "user", "content": "plain"})]
        ),
        6,
        "string content"
    );
}

#[test]
fn what_is_not_a_message_is_an_invalid_value_naming_where() {
    let odd =
        json!({"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "audio"}]});
    let error = Counter::Heuristic.count(&[odd]).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("messages[0].content[1].type"))
    );
    let error = Counter::Heuristic
        .count(&[json!({"role": "user"})])
        .unwrap_err();
    assert_eq!(error.field(), Some("messages[0].content"));
}

fn plan(history: u64, transients: u64, overhead: u64) -> Plan {
    plan_turn(TurnBudget {
        context_window: 1000,
        threshold_percent: 80,
        history_tokens: history,
        overhead_tokens: overhead,
        transient_tokens: transients,
    })
    .unwrap()
}

#[test]
fn a_payload_one_token_under_the_threshold_is_sent() {
    let p = plan(699, 50, 50);
    assert_eq!(
        (p.action, p.payload_tokens, p.threshold_tokens),
        (Action::Send, 799, 800)
    );
}

#[test]
fn a_payload_at_the_threshold_compacts() {
    let p = plan(700, 50, 50);
    assert_eq!(
        p.action,
        Action::Compact { emergency: false },
        "at the line, not only over it"
    );
    assert_eq!(
        (p.reserve_tokens, p.history_budget),
        (100, 120),
        "loopctl's target: 15% of the threshold line, history only"
    );
    // A reserve that leaves less room: the most history under the line.
    assert_eq!(plan(700, 300, 390).history_budget, 109);
    let default_window = plan_turn(TurnBudget {
        context_window: 200_000,
        threshold_percent: 80,
        history_tokens: 170_000,
        overhead_tokens: 5_000,
        transient_tokens: 0,
    });
    // loopctl's compact.rs asserts 24_000 for its defaults.
    assert_eq!(default_window.unwrap().history_budget, 24_000);
    assert_eq!(plan(699, 50, 50).action, Action::Send);
    assert_eq!(
        plan(701, 50, 50).action,
        Action::Compact { emergency: false }
    );
}

#[test]
fn the_emergency_line_is_95_percent_of_the_window() {
    assert_eq!(
        plan(849, 50, 50).action,
        Action::Compact { emergency: false },
        "949: one under the line"
    );
    assert_eq!(
        plan(850, 50, 50).action,
        Action::Compact { emergency: true },
        "950: at the line"
    );
    assert_eq!(plan(851, 50, 50).emergency_tokens, 950);
}

#[test]
fn the_emergency_line_compacts_even_above_a_high_threshold() {
    let high = |history| {
        plan_turn(TurnBudget {
            context_window: 1000,
            threshold_percent: 100,
            history_tokens: history,
            overhead_tokens: 0,
            transient_tokens: 0,
        })
        .unwrap()
        .action
    };
    assert_eq!(high(949), Action::Send);
    assert_eq!(high(950), Action::Compact { emergency: true });
}

#[test]
fn a_window_of_no_tokens_is_refused() {
    let error = plan_turn(TurnBudget {
        context_window: 0,
        threshold_percent: 80,
        history_tokens: 0,
        overhead_tokens: 0,
        transient_tokens: 0,
    })
    .unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_ARGUMENT", Some("contextWindow"))
    );
}

#[test]
fn transients_and_overhead_at_the_line_are_context_exceeded() {
    assert_eq!(plan(0, 799, 0).action, Action::Send);
    assert_eq!(
        (plan(0, 800, 0).action, plan(0, 800, 0).history_budget),
        (Action::ContextExceeded, 0),
        "nothing to compact, yet at the line: compacting cannot help"
    );
    assert_eq!(plan(0, 600, 200).action, Action::ContextExceeded);
    assert_eq!(plan(0, 1001, 0).action, Action::ContextExceeded);
    let p = plan(5000, 799, 0);
    assert_eq!(
        (p.action, p.history_budget),
        (Action::Compact { emergency: true }, 0),
        "a huge history alone is the compactor's job, though no room is left"
    );
}

#[test]
fn sums_past_2_to_the_53_stop_there_and_decide_the_same() {
    let most: u64 = (1 << 53) - 1;
    let at = |window, history, overhead| {
        plan_turn(TurnBudget {
            context_window: window,
            threshold_percent: 80,
            history_tokens: history,
            overhead_tokens: overhead,
            transient_tokens: most,
        })
        .unwrap()
    };
    let exceeded = at(most, most, most);
    assert_eq!(
        (
            exceeded.action,
            exceeded.payload_tokens,
            exceeded.reserve_tokens
        ),
        (Action::ContextExceeded, most, most)
    );
    // A native caller's window past 2^53: decided on the whole sum.
    let huge = at(u64::MAX / 100, u64::MAX, 0);
    assert_eq!(
        (huge.action, huge.payload_tokens),
        (Action::Compact { emergency: true }, most)
    );
}

#[test]
fn the_lines_are_exact_percentages_rounded_up() {
    let at = |window, pct, history| {
        plan_turn(TurnBudget {
            context_window: window,
            threshold_percent: pct,
            history_tokens: history,
            overhead_tokens: 0,
            transient_tokens: 0,
        })
        .unwrap()
    };
    // 799 is 79.98% of 999 and 949 is 94.99%: both under their lines.
    let p = at(999, 80, 799);
    assert_eq!((p.action, p.threshold_tokens), (Action::Send, 800));
    let p = at(999, 80, 949);
    assert_eq!(
        (p.action, p.emergency_tokens),
        (Action::Compact { emergency: false }, 950)
    );
    assert_eq!(at(999, 80, 950).action, Action::Compact { emergency: true });
    assert_eq!(at(1, 80, 0).action, Action::Send, "an empty payload fits");
    assert_eq!(at(1, 80, 1).action, Action::Compact { emergency: true });
}

#[test]
fn a_history_at_its_budget_is_sent_next_turn() {
    // Every small window, threshold and reserve: landing at the budget
    // ends the compaction; the budget is loopctl's target, or else the
    // most history that sends; with no room, the context is exceeded
    // whatever the history.
    for window in 1..=120 {
        for pct in [1, 7, 50, 80, 99, 100] {
            for reserve in 0..=window {
                let at = |history| {
                    plan_turn(TurnBudget {
                        context_window: window,
                        threshold_percent: pct,
                        history_tokens: history,
                        overhead_tokens: reserve / 2,
                        transient_tokens: reserve - reserve / 2,
                    })
                    .unwrap()
                };
                let p = at(window * 2);
                let room = p.threshold_tokens.min(p.emergency_tokens);
                let Some(room) = room.checked_sub(reserve).filter(|&r| r > 0) else {
                    let exceeded = (p.action, p.history_budget, at(0).action);
                    let want = (Action::ContextExceeded, 0, Action::ContextExceeded);
                    assert_eq!(exceeded, want, "{window} {pct} {reserve}");
                    continue;
                };
                let budget = p.history_budget;
                // ContextManager::compact_target_tokens() with its defaults.
                let target = window * pct / 100 * 15 / 100;
                assert_eq!(at(budget).action, Action::Send, "{window} {pct} {reserve}");
                assert_ne!(at(room).action, Action::Send, "{window} {pct} {reserve}");
                assert!(budget <= target, "{window} {pct} {reserve}");
                let most = at(budget + 1).action != Action::Send;
                assert!(budget == target || most, "{window} {pct} {reserve}");
            }
        }
    }
}

#[test]
fn a_threshold_outside_one_to_a_hundred_is_refused() {
    for pct in [0, 101] {
        let error = plan_turn(TurnBudget {
            context_window: 10,
            threshold_percent: pct,
            history_tokens: 0,
            overhead_tokens: 0,
            transient_tokens: 0,
        })
        .unwrap_err();
        assert_eq!(error.code(), "INVALID_ARGUMENT");
    }
}

/// What `ratio` meant before it stopped formatting floats: the decimal
/// that `Display` prints.
fn printed_decimal(x: f32) -> Option<(u64, u64)> {
    let text = format!("{x}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let den = 10_u64.checked_pow(u32::try_from(fraction.len()).ok()?)?;
    let fraction: u64 = if fraction.is_empty() {
        0
    } else {
        fraction.parse().ok()?
    };
    Some((
        whole
            .parse::<u64>()
            .ok()?
            .checked_mul(den)?
            .checked_add(fraction)?,
        den,
    ))
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
    #[test]
    fn the_shortest_decimal_is_the_printed_one(bits in 0x0000_0001_u32..0x5a00_0000) {
        // Every positive f32 below 9e15, denormals included.
        let x = f32::from_bits(bits);
        proptest::prop_assume!(x < 9.0e15);
        proptest::prop_assert_eq!(counter::shortest_decimal(x), printed_decimal(x), "{}", x);
    }
}

#[test]
fn the_shortest_decimal_matches_print_on_common_ratios() {
    let mut x = 0.01_f32;
    while x < 100.0 {
        assert_eq!(counter::shortest_decimal(x), printed_decimal(x), "{x}");
        x = f32::from_bits(x.to_bits() + 97);
    }
}

#[test]
fn transients_ride_attachments_then_contributors_then_memories() {
    use Transient::*;
    assert_eq!(TRANSIENTS, [Attachments, Contributors, Memories]);
}

#[test]
fn an_action_has_the_name_hosts_see() {
    assert_eq!(Action::Send.name(), ("send", false));
    assert_eq!(
        Action::Compact { emergency: true }.name(),
        ("compact", true)
    );
    assert_eq!(Action::ContextExceeded.name(), ("context_exceeded", false));
    let p = plan_turn(TurnBudget {
        context_window: 1000,
        threshold_percent: 80,
        history_tokens: 10,
        overhead_tokens: 7,
        transient_tokens: 5,
    })
    .unwrap();
    assert_eq!(
        (p.history_tokens, p.overhead_tokens, p.reserve_tokens),
        (10, 7, 12)
    );
}
