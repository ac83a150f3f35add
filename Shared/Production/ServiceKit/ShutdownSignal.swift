import Dispatch
import Foundation
import Runtime
import Synchronization

/// SIGTERM/SIGINT turned into an awaitable event (a `DispatchSource` on its own queue).
public final class ShutdownSignal: Sendable {
    /// The signal received, once one was.
    private let state = AsyncCondition<Int32?>(nil)
    // DispatchSourceSignal is thread-safe to hold; only kept alive here, never mutated after init.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "sightscreen.shutdown-signal")
    private let hardDeadline = LockedValue<(Duration, @Sendable () -> Void)?>(nil)

    /// Starts listening for `signals`; their default action (terminate) is disabled. Pass `[]` for
    /// a signal that only `trigger` fires (tests).
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

    /// Once a signal arrives, runs `action` (typically: log and `exit`) after `delay` on this
    /// signal's own dispatch queue — never on the cooperative pool, so it fires even when every
    /// cooperative thread is blocked.
    public func onSignal(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        hardDeadline.withLock { $0 = (delay, action) }
    }

    /// Marks shutdown as requested, as if `signal` had arrived (also used by tests). Only the
    /// first call counts.
    public func trigger(_ signal: Int32 = SIGTERM) {
        let first = state.update { received -> Bool in
            guard received == nil else { return false }
            received = signal
            return true
        }
        guard first else { return }
        if let (delay, action) = hardDeadline.withLock({ $0 }) {
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay / .nanoseconds(1))), execute: action)
        }
    }

    /// Whether a signal arrived (or `trigger` was called).
    public var isTriggered: Bool { received != nil }

    /// The signal received so far, if any.
    public var received: Int32? { state.value }

    /// Suspends until a shutdown signal arrives; returns its number, or nil when the waiting task
    /// was cancelled first.
    @discardableResult
    public func wait() async -> Int32? {
        guard await state.wait(until: { $0 != nil }) else { return nil }
        return state.value
    }
}
