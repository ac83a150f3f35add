// Waiting in tests for something another task, thread or process does: the one polling helper of the test
// targets (a condition polled on a fixed interval up to a deadline, never a fixed sleep).

/// Polls `condition` every `interval` until it holds or `timeout` has passed, then checks it once more.
/// - Returns: whether it held.
public func eventually(
    within timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Polls `condition` every `interval` until it holds.
/// - Throws: `EventuallyTimeout` naming `what` when it does not hold within `timeout`, or what `condition` or
///   the sleep threw (a cancelled test stops waiting).
public func eventually(
    _ what: String, within timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw EventuallyTimeout(description: "not within \(timeout): \(what)") }
        try await Task.sleep(for: interval)
    }
}

/// A condition of `eventually(_:within:every:_:)` that did not hold in time.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let description: String
}
