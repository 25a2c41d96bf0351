//! The conformance suite on the memory store, natively.
#![cfg(not(target_arch = "wasm32"))]

mod session_suite;

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use attache::session::{Environment, MemorySessionStore};

/// A clock that ticks on every read, so every write is strictly later.
#[derive(Default)]
struct TestEnvironment {
    tick: Cell<u32>,
}

impl Environment for TestEnvironment {
    fn clock(&self) -> f64 {
        self.tick.set(self.tick.get() + 1);
        f64::from(self.tick.get())
    }
    fn new_id(&self) -> String {
        format!("generated-{}", self.now())
    }
}

/// The memory store never suspends, so one poll completes every call.
fn block_on<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the memory store never waits"),
    }
}

macro_rules! native {
    ($($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                let store = MemorySessionStore::new(Rc::new(TestEnvironment::default()));
                block_on(session_suite::$case(&store));
            }
        )*
    };
}

for_each_case!(native);
