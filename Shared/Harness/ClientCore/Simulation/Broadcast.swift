import Synchronization
import Runtime

/// A multi-subscriber async stream: every access to `stream` gives a new `AsyncStream` that
/// receives every later value (like ActivityKit's sequences, which can be observed again after a
/// relaunch). Values yielded while nobody subscribes are dropped.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var nextId = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = LockedValue(State())

    init() {}

    /// A new subscription, starting with `initial` values.
    func stream(initial: [Element] = []) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        for value in initial { continuation.yield(value) }
        let id: Int? = state.withLock { state in
            if state.finished { return nil }
            let id = state.nextId
            state.nextId += 1
            state.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every current subscriber.
    func yield(_ value: Element) {
        let targets = state.withLock { Array($0.continuations.values) }
        for continuation in targets { continuation.yield(value) }
    }

    /// Ends every subscription; later subscriptions end at once.
    func finish() {
        let targets = state.withLock { state in
            state.finished = true
            let all = Array(state.continuations.values)
            state.continuations = [:]
            return all
        }
        for continuation in targets { continuation.finish() }
    }
}
