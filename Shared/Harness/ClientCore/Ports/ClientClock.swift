import Foundation

/// Time for the client: the current instant and a sleep, injectable so that stale checks and
/// retry backoff are exact and instant in tests.
public protocol ClientClock: Sendable {
    /// The current instant.
    func now() -> Date
    /// Suspends for `seconds` (throws `CancellationError` when the task is cancelled).
    func sleep(seconds: Double) async throws
}

/// The real clock.
public struct SystemClientClock: ClientClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded())))
    }
}
