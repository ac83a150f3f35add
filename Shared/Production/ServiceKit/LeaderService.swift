import Postgres
import Runtime

/// Singleton work as a service: one replica at a time holds a PostgreSQL advisory lock and, while it holds it,
/// runs the services of a term (`term()`, e.g. `PeriodicService`s); the others wait and try again every `retry`.
///
/// The holder checks the lock every `retry` (one round trip on the lock's own session). When the session dies
/// the lock is lost: the term's services are cancelled (singleton work must be idempotent, so the next holder
/// redoes what was cut short) and the replica goes back to waiting; a new term starts from fresh services. On
/// graceful shutdown the term's services see the request as usual, and the lock is released when they return.
///
/// While it holds the lock the replica reports it in `leader` (a gauge: 1 or 0) and, when `readiness` is given, in
/// `/ready` (`leader`: false while waiting), for work whose standby replicas should not count as ready.
public struct LeaderService: Service {
    public let name: String
    private let lockName: String
    private let database: PostgresClient
    private let retry: Duration
    private let readiness: Readiness?
    private let leader: Gauge?
    private let lockErrors: Counter?
    private let logger: Logger
    private let term: @Sendable () -> [any Service]

    /// - Parameters:
    ///   - name: the service name (logs).
    ///   - lockName: the advisory lock's name (`PostgresAdvisoryLock.key(for:)` gives its key).
    ///   - retry: the pause between two tries, and between two checks of a held lock.
    ///   - readiness: where `leader` is reported for `/ready` (nil: leadership does not gate readiness).
    ///   - leader: the gauge set to 1 while the lock is held.
    ///   - lockErrors: counts failed lock attempts.
    ///   - term: the services of one term, made afresh for each.
    public init(_ name: String, lockName: String, database: PostgresClient, retry: Duration, readiness: Readiness?, leader: Gauge?,
                lockErrors: Counter? = nil, logger: Logger, term: @escaping @Sendable () -> [any Service]) {
        self.name = name
        self.lockName = lockName
        self.database = database
        self.retry = retry
        self.readiness = readiness
        self.leader = leader
        self.lockErrors = lockErrors
        self.logger = logger
        self.term = term
    }

    public func run() async throws {
        readiness?.set("leader", false)
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            let lock: PostgresAdvisoryLock?
            do {
                lock = try await database.tryAdvisoryLock(key: PostgresAdvisoryLock.key(for: lockName))
            } catch {
                lockErrors?.increment()
                logger.warning("advisory lock attempt failed", ["lock": lockName, "error": String(describing: error)])
                lock = nil
            }
            guard let lock else {
                try? await GracefulShutdown.cancellingOnRequest { [retry] in try await Task.sleep(for: retry) }
                continue
            }
            logger.info("leader: holding the lock", ["event": "leader_acquired", "lock": lockName])
            readiness?.set("leader", true)
            leader?.set(1)
            await lead(while: lock)
            await lock.release()
            readiness?.set("leader", false)
            leader?.set(0)
            logger.info("leader: released the lock", ["event": "leader_released", "lock": lockName])
        }
    }

    /// One term: the term's services run until one of them returns (shutdown), the lock is lost, or the task is
    /// cancelled; then the others are cancelled.
    private func lead(while lock: PostgresAdvisoryLock) async {
        let services = term()
        await withTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask { [logger] in
                    do {
                        try await service.run()
                    } catch where !(error is CancellationError) {
                        logger.error("\(service.name) failed; ending the term", ["service": service.name, "error": String(describing: error)])
                    } catch {}
                }
            }
            group.addTask { [retry, logger, lockName] in
                try? await GracefulShutdown.cancellingOnRequest {
                    while !Task.isCancelled, await lock.isHeld() {
                        try await Task.sleep(for: retry)
                    }
                }
                if !Task.isCancelled && !GracefulShutdown.isRequested {
                    logger.warning("lock lost; stopping the term", ["event": "leader_lost", "lock": lockName])
                }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }
}
