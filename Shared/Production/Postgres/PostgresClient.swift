import Runtime
import Synchronization

/// A pool of at most `configuration.maxConnections` PostgreSQL connections, opened lazily.
///
/// Callers that find every connection busy wait in FIFO order for up to
/// `configuration.acquireTimeout`.
///
/// Reconnecting after a server restart:
/// - Before an idle connection is handed out it is checked without a round trip (`poll` on its
///   socket + `PQconsumeInput`); one the server has closed is discarded and a new one opened.
/// - Any connection that comes back broken (`PQstatus` bad) or still inside a transaction is
///   discarded, never reused.
/// - `query`, `execute` and `stream` retry **once**, on a fresh connection, only when the failure is
///   `connectionLost(querySent: false)`: libpq could not send the statement because the
///   connection had already died, so the server never saw it. A statement that was sent before
///   the connection broke (`querySent: true`), a server error, or anything inside
///   `withConnection`/`withTransaction` is never retried: the caller decides.
public final class PostgresClient: Sendable {
    typealias Waiter = CheckedContinuation<PoolGrant<PostgresConnection>, Error>
    typealias StateMachine = PoolStateMachine<PostgresConnection, Waiter>

    public let configuration: PostgresConfiguration
    let logger: Logger
    private let state: LockedValue<StateMachine>
    private let waiterCounter = Atomic<UInt64>(0)
    private let metrics: PostgresMetrics

    /// Creates the pool; no connection is opened until the first use.
    public init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "postgres"), metrics: MetricsRegistry? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.state = LockedValue(StateMachine(maxConnections: max(1, configuration.maxConnections)))
        self.metrics = PostgresMetrics(registry: metrics)
    }

    // MARK: - Queries

    /// Runs one statement on a pooled connection and returns its rows (see the type's note on retries).
    /// - Throws: `PostgresError`.
    public func query(_ sql: String, _ parameters: [PostgresValue?] = [], prepared: Bool = false) async throws
        -> PostgresRows
    {
        try await withRetry { try await $0.query(sql, parameters, prepared: prepared) }
    }

    /// Runs one command on a pooled connection and returns the number of rows it affected.
    /// - Throws: `PostgresError`.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue?] = [], prepared: Bool = false) async throws
        -> Int
    {
        try await withRetry { try await $0.query(sql, parameters, prepared: prepared).affectedRows }
    }

    /// Streams a query's rows through a server-side cursor on a pooled connection (see
    /// `PostgresConnection.stream`). Retried once only if the `BEGIN` could not be sent.
    /// - Returns: the number of rows streamed.
    /// - Throws: `PostgresError` or the body's error.
    @discardableResult
    public nonisolated(nonsending) func stream(
        _ sql: String, _ parameters: [PostgresValue?] = [], batchSize: Int = 1000,
        _ body: (PostgresRow) async throws -> Void
    ) async throws -> Int {
        var rowsSeen = 0
        return try await withRetry { connection in
            guard rowsSeen == 0 else { throw PostgresError.unexpected("stream restarted after rows were delivered") }
            return try await connection.stream(sql, parameters, batchSize: batchSize) { row in
                rowsSeen += 1
                try await body(row)
            }
        }
    }

    /// Lends a connection to `body` and takes it back afterwards (discarding it if broken or left
    /// inside a transaction). Nothing inside is retried.
    /// - Throws: `PostgresError` from acquiring, or the body's error.
    public nonisolated(nonsending) func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let value = try await body(connection)
            release(connection)
            return value
        } catch {
            release(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction: `BEGIN`, then `COMMIT`, or `ROLLBACK` when `body` throws.
    /// Nothing inside is retried.
    /// - Throws: `PostgresError` or the body's error.
    public nonisolated(nonsending) func withTransaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { try await $0.withTransaction(body) }
    }

    /// Round-trips `SELECT 1` on a pooled connection.
    /// - Returns: how long it took.
    /// - Throws: the failure (server down, pool exhausted).
    @discardableResult
    public func healthCheck() async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await withRetry { try await $0.ping() }
        return clock.now - start
    }

    /// Connections open (idle + in use), idle, and callers waiting.
    public var statistics: (open: Int, idle: Int, waiting: Int) {
        state.withLock { ($0.open, $0.idle.count, $0.waiters.count) }
    }

    /// Closes idle connections, fails waiters with `poolClosed`, and closes connections in use
    /// when they come back. Later calls fail with `poolClosed`.
    public func shutdown() async {
        let (idle, waiters) = state.withLock { $0.shutdown() }
        for waiter in waiters { waiter.resume(throwing: PostgresError.poolClosed) }
        for connection in idle { await connection.close() }
        metrics.open.set(Double(statistics.open))
    }

    // MARK: - Retry

    /// Runs `operation` on a pooled connection; retries once on a new connection when the
    /// statement could not be sent because the connection was already dead.
    private nonisolated(nonsending) func withRetry<T>(_ operation: (PostgresConnection) async throws -> T) async throws -> T {
        for attempt in 1...2 {
            let connection = try await acquire()
            do {
                let value = try await operation(connection)
                release(connection)
                return value
            } catch let error as PostgresError {
                release(connection)
                if Self.shouldRetry(error, attempt: attempt) {
                    metrics.retries.increment()
                    logger.warning("postgres connection was dead before sending; retrying once on a new connection",
                        ["connection": String(connection.id)])
                    continue
                }
                metrics.errors.increment()
                throw error
            } catch {
                release(connection)
                throw error
            }
        }
        throw PostgresError.unexpected("retry loop ended")
    }

    /// The retry rule: only the first attempt, and only when the connection was already dead so
    /// the statement never reached the server. Never for errors after sending or server errors.
    static func shouldRetry(_ error: PostgresError, attempt: Int) -> Bool {
        guard attempt == 1, case .connectionLost(_, querySent: false) = error else { return false }
        return true
    }

    // MARK: - Pool

    /// A live connection from the pool, opened if needed.
    func acquire() async throws -> PostgresConnection {
        // Bounded: each turn either returns or discards one dead idle connection.
        for _ in 0...(configuration.maxConnections + 1) {
            switch try await grant() {
            case .connection(let connection):
                if !connection.isBroken, await connection.checkAlive() { return connection }
                logger.info("postgres discarding a connection the server closed", ["connection": String(connection.id)])
                discard(connection)
            case .openSlot:
                return try await open()
            }
        }
        throw PostgresError.unexpected("no live connection after discarding every idle one")
    }

    /// Gives a connection back: reused if healthy, otherwise closed and its slot handed on.
    func release(_ connection: PostgresConnection) {
        guard !connection.isBroken, !connection.isInTransaction else {
            if connection.isInTransaction, !connection.isBroken {
                logger.warning("postgres connection returned inside a transaction; discarding it",
                    ["connection": String(connection.id)])
            }
            discard(connection)
            return
        }
        perform(state.withLock { $0.release(connection) })
    }

    private func discard(_ connection: PostgresConnection) {
        connection.closeInBackground()
        metrics.discarded.increment()
        perform(state.withLock { $0.discard() })
        metrics.open.set(Double(statistics.open))
    }

    private func perform(_ action: StateMachine.ReturnAction) {
        switch action {
        case .none: break
        case .resume(let waiter, let grant): waiter.resume(returning: grant)
        case .close(let connection): connection.closeInBackground()
        }
    }

    private func open() async throws -> PostgresConnection {
        do {
            let connection = try await PostgresConnection.connect(configuration, logger: logger)
            metrics.opened.increment()
            metrics.open.set(Double(statistics.open))
            logger.debug("postgres connection opened",
                ["connection": String(connection.id), "backend_pid": String(connection.backendProcessID)])
            return connection
        } catch {
            perform(state.withLock { $0.openFailed() })
            throw error
        }
    }

    /// An idle connection or an open slot, waiting (FIFO, bounded by `acquireTimeout`) if needed.
    private func grant() async throws -> StateMachine.Grant {
        if let grant = state.withLock({ $0.acquireImmediately() }) { return grant }
        if state.withLock({ $0.isClosed }) { throw PostgresError.poolClosed }
        let id = waiterCounter.add(1, ordering: .relaxed).newValue
        let timeout = configuration.acquireTimeout
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: PostgresError.poolTimeout(after: timeout))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let action = state.withLock { state -> StateMachine.AcquireAction in
                    if Task.isCancelled { return .closed }
                    return state.acquire(id: id, waiter: continuation)
                }
                switch action {
                case .grant(let grant): continuation.resume(returning: grant)
                case .wait: break
                case .closed:
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : PostgresError.poolClosed)
                }
            }
        } onCancel: { [self] in
            state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: CancellationError())
        }
    }
}
