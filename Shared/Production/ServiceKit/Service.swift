import Runtime

/// One long-running part of a process (a consume loop, the HTTP server, a pool to close last),
/// run by a `ServiceGroup`.
///
/// `run()` is structured: it returns only when its work is over. It should watch
/// `GracefulShutdown` (finish what is in hand, then return) and return promptly when cancelled.
/// Returning before shutdown was requested ends the whole group (a service is not expected to
/// finish on its own); throwing makes the process exit 1.
public protocol Service: Sendable {
    /// The name used in logs.
    var name: String { get }
    /// Runs until the work is over, graceful shutdown was handled, or the task was cancelled.
    func run() async throws
}

/// A service from a closure: its `run()` calls `body`.
public struct ClosureService: Service {
    public let name: String
    private let body: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - cancelOnShutdown: true for work with nothing to finish (a gauge refresh, an idempotent
    ///     poll cycle): the body is cancelled as soon as its graceful shutdown is requested.
    public init(_ name: String, cancelOnShutdown: Bool = false, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        if cancelOnShutdown {
            self.body = { try await GracefulShutdown.cancellingOnRequest(body) }
        } else {
            self.body = body
        }
    }

    public func run() async throws { try await body() }
}

/// A resource held until its graceful shutdown, then released: a producer to flush, a consumer to
/// close, a pool to close. Listed before the services that use it, so it is released after them.
public struct ResourceService: Service {
    public let name: String
    private let release: @Sendable () async -> Void

    public init(_ name: String, release: @escaping @Sendable () async -> Void) {
        self.name = name
        self.release = release
    }

    public func run() async throws {
        // Cancelled (the grace period is over) or asked to finish: release either way.
        try? await GracefulShutdown.wait()
        await release()
    }
}
