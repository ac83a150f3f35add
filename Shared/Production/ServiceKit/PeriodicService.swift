import Runtime

/// Work repeated on a timer (a poll cycle, a sweep, a gauge refresh) as a service: runs `body` at once,
/// then again `interval` after each run ended, until its graceful shutdown is requested or it is cancelled.
///
/// A run that throws is counted (`periodic_failures_total{service}` when a registry is given, and
/// ``failureCount``) and logged; the loop goes on with the next run — a failure never ends the service.
/// On graceful shutdown the wait between runs ends at once; a run in progress is cancelled
/// (`cancelRunOnShutdown`, the default: for idempotent work with nothing to finish) or finished first.
public struct PeriodicService: Service {
    public let name: String
    /// Time from the end of one run to the start of the next.
    public let interval: Duration
    /// Whether a run in progress when shutdown is requested is cancelled (true) or finished (false).
    public let cancelRunOnShutdown: Bool
    private let logger: Logger
    private let failures: Counter?
    private let failed: LockedValue<Int>
    private let body: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - name: the service name (logs, the failure counter's `service` label).
    ///   - interval: the pause after each run.
    ///   - logger: where failed runs are logged.
    ///   - metrics: where `periodic_failures_total{service}` is counted (nil: only logged).
    ///   - cancelRunOnShutdown: false for a run that must finish once started (it still ends when cancelled).
    ///   - body: one run; throwing counts as a failure, not the end of the service.
    public init(_ name: String, every interval: Duration, logger: Logger, metrics: MetricsRegistry? = nil, cancelRunOnShutdown: Bool = true,
                _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.cancelRunOnShutdown = cancelRunOnShutdown
        self.logger = logger
        failures = metrics?.counter("periodic_failures_total", help: "Runs of periodic work that failed (the work runs again at its next interval)",
                                    labels: ["service": name])
        failed = LockedValue(0)
        self.body = body
    }

    /// Runs that failed so far.
    public var failureCount: Int { failed.withLock { $0 } }

    public func run() async throws {
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            do {
                if cancelRunOnShutdown {
                    try await GracefulShutdown.cancellingOnRequest(body)
                } else {
                    try await body()
                }
            } catch {
                // Stopped, not failed: cancelled by the deadline, or by the shutdown request (`cancelRunOnShutdown`).
                if Task.isCancelled || (error is CancellationError && GracefulShutdown.isRequested) { return }
                failed.withLock { $0 += 1 }
                failures?.increment()
                logger.warning("\(name) failed; running again in \(interval)", ["event": "periodic_failed", "service": name, "error": "\(error)"])
            }
            // The pause ends early, and the loop with it, when shutdown is requested or the task is cancelled.
            try? await GracefulShutdown.cancellingOnRequest { try await Task.sleep(for: interval) }
        }
    }
}
