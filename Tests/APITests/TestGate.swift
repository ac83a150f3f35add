import Synchronization
import Runtime

/// A one-shot gate: `wait()` suspends until `open()` (at once when already open) or until the waiting task is cancelled.
final class TestGate: Sendable {
    private struct State {
        var opened = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// A cancelled waiter opens the gate and goes on: a test whose wait failed cancels its `async let`s at the end of
    /// the scope and then awaits them, which would otherwise wait for ever on a gate nobody opens.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if state.opened { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.opened = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

