/// Waits; injected so tests can record the waits instead of sleeping.
public protocol Sleeper: Sendable {
    /// Suspends for `duration`; throws `CancellationError` when cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real sleeper (`Task.sleep`).
public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
