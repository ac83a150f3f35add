/// Exponential backoff with "equal jitter": after the n-th consecutive failure the poller waits
/// `min(maximum, initial · 2^(n-1)) · (0.5 + 0.5 · r)` with r in [0, 1) from the injected random source,
/// rounded to whole milliseconds.
struct Backoff: Sendable {
    var initial: Duration = .seconds(1)
    var maximum: Duration = .seconds(60)

    /// The wait after `failures` consecutive failures (≥ 1), for a random draw `r` in [0, 1).
    func delay(afterFailures failures: Int, random r: Double) -> Duration {
        let exponent = min(max(0, failures - 1), 30)
        let base = min(maximum, initial * (1 << exponent))
        let factor = 0.5 + 0.5 * min(max(r, 0), 1)
        let (seconds, attoseconds) = base.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds / 1_000_000_000_000_000)
        return .milliseconds(Int64((milliseconds * factor).rounded()))
    }
}

/// Waits; injected so tests can record the waits instead of sleeping.
protocol Sleeper: Sendable {
    /// Suspends for `duration`; throws `CancellationError` when cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real sleeper (`Task.sleep`).
struct TaskSleeper: Sleeper {
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
