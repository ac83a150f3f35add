import Runtime

/// Keeps one readiness condition true only while a dependency answers: every `interval` it runs
/// `check` (which must bound itself: a broker round trip with a timeout, a `SELECT 1` under the
/// pool's query timeout), sets the condition from the outcome, logs each change, and exports
/// `dependency_up{dependency}` (1/0) and `dependency_check_failures_total{dependency}`.
///
/// `/ready` then says "not ready" while PostgreSQL or the broker is stalled, and "ready" again on the
/// first good answer after it is back. The condition is false until the first check succeeded, and
/// turns false as soon as a check has run longer than `checkTimeout` (a check that hangs cannot
/// leave it true). With `drivesReadiness: false` only the metrics and the log follow the dependency
/// (for a process that still serves useful answers without it). Nothing to finish on shutdown.
public struct DependencyProbe: Service {
    public let name: String
    let condition: String
    let readiness: Readiness
    let metrics: MetricsRegistry
    let logger: Logger
    let interval: Duration
    let checkTimeout: Duration
    let drivesReadiness: Bool
    let check: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - condition: the readiness condition to drive (`kafka_broker`, `postgres`).
    ///   - check: succeeds when the dependency answered; throws (within its own timeout) when not.
    public init(_ condition: String, readiness: Readiness, metrics: MetricsRegistry, logger: Logger, interval: Duration = .seconds(2),
                checkTimeout: Duration = .seconds(15), drivesReadiness: Bool = true, check: @escaping @Sendable () async throws -> Void) {
        name = "\(condition)-readiness"
        self.condition = condition
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
        self.checkTimeout = checkTimeout
        self.drivesReadiness = drivesReadiness
        self.check = check
        if drivesReadiness { readiness.set(condition, false) }
    }

    private func record(_ reachable: Bool, _ up: Gauge) {
        if drivesReadiness { readiness.set(condition, reachable) }
        up.set(reachable ? 1 : 0)
    }

    public func run() async throws {
        try await GracefulShutdown.cancellingOnRequest {
            let up = metrics.gauge("dependency_up", help: "1 while the dependency answers its readiness check", labels: ["dependency": condition])
            let failures = metrics.counter("dependency_check_failures_total", help: "Readiness checks of a dependency that failed",
                                           labels: ["dependency": condition])
            var last: Bool?
            while !Task.isCancelled {
                let reachable: Bool
                // A check still running after `checkTimeout` counts as "not answering" at once.
                let watchdog = Task { [self] in
                    try await Task.sleep(for: checkTimeout)
                    record(false, up)
                }
                defer { watchdog.cancel() }
                do {
                    try await check()
                    reachable = true
                } catch is CancellationError {
                    return
                } catch {
                    failures.increment()
                    reachable = false
                    if last != false { logger.warning("\(condition) does not answer; not ready", ["error": "\(error)", "dependency": condition]) }
                }
                watchdog.cancel()
                if reachable, last == false { logger.info("\(condition) answers again; ready", ["dependency": condition]) }
                record(reachable, up)
                last = reachable
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension ServiceContext {
    /// A ``DependencyProbe`` for this process's readiness, metrics and logger.
    public func dependencyProbe(_ condition: String, drivesReadiness: Bool = true,
                                check: @escaping @Sendable () async throws -> Void) -> DependencyProbe {
        DependencyProbe(condition, readiness: readiness, metrics: metrics, logger: logger, drivesReadiness: drivesReadiness, check: check)
    }
}
