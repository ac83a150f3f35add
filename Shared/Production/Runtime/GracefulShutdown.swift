/// A request to finish up: set once, awaitable. A `ServiceGroup` gives every service its own and
/// triggers them one at a time, in reverse start order.
public final class GracefulShutdownTrigger: Sendable {
    private let requested = AsyncCondition(false)

    public init() {}

    /// Requests graceful shutdown (idempotent).
    public func trigger() { requested.update { $0 = true } }

    /// Whether shutdown was requested.
    public var isTriggered: Bool { requested.value }

    /// Suspends until shutdown is requested; false when the waiting task was cancelled first.
    public func wait() async -> Bool { await requested.wait(until: { $0 }) }
}

/// Graceful shutdown as the running service sees it (the shape swift-service-lifecycle made
/// standard): a task-local trigger set by the `ServiceGroup` around each service's `run()`.
///
/// A long loop checks `GracefulShutdown.isRequested` between units of work (finish the message in
/// hand, commit it, return); a service that only holds a resource awaits `GracefulShutdown.wait()`
/// and then releases it. Cancellation still means "stop now": the group cancels what has not
/// returned when the grace period is over. Outside a group (unit tests) shutdown is never
/// requested and only cancellation stops the work.
public enum GracefulShutdown {
    @TaskLocal public static var trigger: GracefulShutdownTrigger?

    /// Whether the service running in this task was asked to finish up.
    public static var isRequested: Bool { trigger?.isTriggered ?? false }

    /// Suspends until graceful shutdown is requested.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public static func wait() async throws {
        let requested: Bool
        if let trigger {
            requested = await trigger.wait()
        } else {
            requested = await AsyncCondition(false).wait(until: { $0 })
        }
        if !requested || Task.isCancelled { throw CancellationError() }
    }

    /// Runs `body`, cancelling it as soon as graceful shutdown is requested: for work with nothing
    /// to finish (a gauge refresh, an idempotent poll cycle). Returns when `body` has returned.
    public static func cancellingOnRequest(_ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try? await GracefulShutdown.wait()
            }
            // Whichever ends first (the work, or the request, or cancellation) ends both.
            do {
                try await group.next()
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
            while let _ = try? await group.next() {}
        }
    }
}
