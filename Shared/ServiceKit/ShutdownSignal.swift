import Dispatch
import Foundation
import Synchronization

/// SIGTERM/SIGINT turned into an awaitable event (a `DispatchSource` on its own queue).
public final class ShutdownSignal: Sendable {
    private struct State {
        var received: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let state = Mutex(State())
    // DispatchSourceSignal is thread-safe to hold; only kept alive here, never mutated after init.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "sightscreen.shutdown-signal")

    /// Starts listening for `signals`; their default action (terminate) is disabled.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.trigger(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    private let hardDeadline = Mutex<(Duration, @Sendable () -> Void)?>(nil)

    /// Once a signal arrives, runs `action` (typically: log and `exit`) after `delay` on this
    /// signal's own dispatch queue — never on the cooperative pool, so it fires even when every
    /// cooperative thread is blocked.
    public func onSignal(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        hardDeadline.withLock { $0 = (delay, action) }
    }

    /// Marks shutdown as requested, as if `signal` had arrived (also used by tests).
    public func trigger(_ signal: Int32 = SIGTERM) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            guard state.received == nil else { return [] }
            state.received = signal
            defer { state.waiters = [] }
            return state.waiters
        }
        if let (delay, action) = hardDeadline.withLock({ $0 }) {
            let (seconds, attoseconds) = delay.components
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)), execute: action)
        }
        for waiter in waiters { waiter.resume(returning: signal) }
    }

    /// The signal received so far, if any.
    public var received: Int32? { state.withLock { $0.received } }

    /// Suspends until a shutdown signal arrives; returns its number.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Int32? in
                if let received = state.received { return received }
                state.waiters.append(continuation)
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }
}
