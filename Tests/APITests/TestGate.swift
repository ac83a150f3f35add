import Synchronization
import Runtime

/// A one-shot gate: `wait()` suspends until `open()` (at once when already open).
final class TestGate: Sendable {
    private struct State {
        var opened = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    func wait() async {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                if state.opened { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
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

