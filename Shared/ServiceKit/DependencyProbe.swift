import Runtime

/// Keeps one readiness condition true only while a dependency answers: every `interval` it runs
/// `check` (which must bound itself: a broker round trip with a timeout, a `SELECT 1` under the
/// pool's query timeout), sets the condition from the outcome, logs each change, and exports
/// `dependency_up{dependency}` (1/0) and `dependency_check_failures_total{dependency}`.
///
/// `/ready` then says "not ready" while PostgreSQL or the broker is stalled, and "ready" again on the
/// first good answer after it is back. Nothing to finish on shutdown: it stops at once.
public struct DependencyProbe: Service {
    public let name: String
    let condition: String
    let readiness: Readiness
    let metrics: MetricsRegistry
    let logger: Logger
    let interval: Duration
    let check: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - condition: the readiness condition to drive (`kafka_broker`, `postgres`).
    ///   - check: succeeds when the dependency answered; throws (within its own timeout) when not.
    public init(_ condition: String, readiness: Readiness, metrics: MetricsRegistry, logger: Logger, interval: Duration = .seconds(2),
                check: @escaping @Sendable () async throws -> Void) {
        name = "\(condition)-readiness"
        self.condition = condition
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
        self.check = check
    }

    public func run() async throws {
        try await GracefulShutdown.cancellingOnRequest {
            let up = metrics.gauge("dependency_up", help: "1 while the dependency answers its readiness check", labels: ["dependency": condition])
            let failures = metrics.counter("dependency_check_failures_total", help: "Readiness checks of a dependency that failed",
                                           labels: ["dependency": condition])
            var last: Bool?
            while !Task.isCancelled {
                let reachable: Bool
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
                if reachable, last == false { logger.info("\(condition) answers again; ready", ["dependency": condition]) }
                readiness.set(condition, reachable)
                up.set(reachable ? 1 : 0)
                last = reachable
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension ServiceContext {
    /// A ``DependencyProbe`` for this process's readiness, metrics and logger.
    public func dependencyProbe(_ condition: String, check: @escaping @Sendable () async throws -> Void) -> DependencyProbe {
        DependencyProbe(condition, readiness: readiness, metrics: metrics, logger: logger, check: check)
    }
}
