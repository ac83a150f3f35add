import Dispatch
import Runtime
import Synchronization

/// One PostgreSQL session. Every blocking libpq call runs on this connection's own serial
/// `DispatchQueue`, never on Swift's cooperative thread pool; callers await a continuation.
///
/// Get one from `PostgresClient.withConnection` / `withTransaction` (pooled) or
/// `PostgresConnection.connect` (unpooled). Statements on one connection run one at a time.
public final class PostgresConnection: Sendable {
    /// A process-unique number, for logs.
    public let id: Int
    /// The server process serving this session (`pg_backend_pid()`).
    public let backendProcessID: Int32
    /// How long a statement may wait for the server's answer (`PostgresConfiguration.queryTimeout`).
    public let queryTimeout: Duration?
    private let queue: DispatchQueue
    private let pq: PQConnection
    private let canceller: PQCancel
    /// Mirrors of libpq state, refreshed on the queue after every operation, so that the pool can
    /// read them without a queue hop.
    private let broken = Atomic<Bool>(false)
    private let inTransaction = Atomic<Bool>(false)
    private static let operationCounter = Atomic<UInt64>(0)
    private static let connectionCounter = Atomic<Int>(0)
    private let cursorCounter = Atomic<Int>(0)

    private init(id: Int, queue: DispatchQueue, pq: PQConnection, queryTimeout: Duration?) {
        self.id = id
        self.queryTimeout = queryTimeout
        self.queue = queue
        self.pq = pq
        self.backendProcessID = pq.backendProcessID
        self.canceller = pq.makeCancel()
    }

    /// Opens a new, unpooled connection; server notices go to `logger`.
    /// - Throws: `PostgresError.connectionFailed` with host and port.
    public static func connect(_ configuration: PostgresConfiguration, logger: Logger = Logger(label: "postgres"))
        async throws -> PostgresConnection
    {
        let id = connectionCounter.add(1, ordering: .relaxed).newValue
        let queue = DispatchQueue(label: "postgres.connection.\(id)")
        let pq = try await BlockingCalls.run(on: queue) { try PQConnection.connect(configuration, logger: logger) }
        return PostgresConnection(id: id, queue: queue, pq: pq, queryTimeout: configuration.queryTimeout)
    }

    /// True once libpq has reported the connection broken (or it was closed).
    public var isBroken: Bool { broken.load(ordering: .acquiring) }

    /// True while a transaction block is open on this session.
    public var isInTransaction: Bool { inTransaction.load(ordering: .acquiring) }

    /// Runs `body` with the libpq connection on the serial queue. Task cancellation sends a
    /// cancel request for this operation only.
    private func run<T: Sendable>(_ body: @escaping @Sendable (PQConnection) throws -> T) async throws -> T {
        let operation = Self.operationCounter.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await ThreadHandoff.value { (resumer: ThreadHandoff.Resumer<T>) in
                queue.async { [self] in
                    canceller.begin(operation)
                    let result = Result { try body(pq) }
                    canceller.end()
                    broken.store(!pq.isOK, ordering: .releasing)
                    inTransaction.store(pq.isInTransaction, ordering: .releasing)
                    resumer.resume(with: result)
                }
            }
        } onCancel: { [canceller] in
            // PQcancel opens a socket to the server: keep it off the caller's thread.
            DispatchQueue.global().async { canceller.cancel(operation) }
        }
    }

    /// Runs one statement and returns its rows. Values go as parameters `$1`, `$2`, …; never
    /// put values into `sql`.
    ///
    /// - Parameters:
    ///   - sql: One statement with `$n` placeholders.
    ///   - parameters: One value per placeholder; `nil` is SQL NULL.
    ///   - prepared: Prepare the statement once on this connection and reuse it.
    /// - Throws: `PostgresError` (`queryFailed`, `connectionLost`, `invalidParameter`, `queryTimedOut`
    ///   when the server did not answer within ``queryTimeout``).
    public func query(_ sql: String, _ parameters: [PostgresValue?] = [], prepared: Bool = false) async throws
        -> PostgresRows
    {
        try await query(sql, parameters, prepared: prepared, timeout: queryTimeout)
    }

    /// `query` with its own answer timeout (nil: wait as long as it takes; for migrations and their lock).
    func query(_ sql: String, _ parameters: [PostgresValue?], prepared: Bool, timeout: Duration?) async throws -> PostgresRows {
        let bindings = parameters.map { $0?.postgresBinding }
        let result = try await run { try $0.execute(sql, bindings, prepared: prepared, timeout: timeout) }
        return PostgresRows(result: result)
    }

    /// Runs one command and returns the number of rows it affected.
    /// - Throws: `PostgresError`.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue?] = [], prepared: Bool = false) async throws
        -> Int
    {
        try await query(sql, parameters, prepared: prepared).affectedRows
    }

    /// Runs trusted constant SQL that may hold several statements (simple query protocol,
    /// no parameters), e.g. a migration.
    func executeScript(_ sql: String) async throws {
        _ = try await run { try $0.executeScript(sql) }
    }

    /// Checks without a round trip that the server has not closed the connection.
    func checkAlive() async -> Bool {
        (try? await run { $0.checkAlive() }) ?? false
    }

    /// Runs `SELECT 1`.
    /// - Throws: the failure.
    public func ping() async throws {
        _ = try await query("SELECT 1")
    }

    /// A name for the next server-side cursor on this connection.
    func nextCursorName() -> String {
        "sightscreen_cursor_\(cursorCounter.add(1, ordering: .relaxed).newValue)"
    }

    /// Closes the session (sends Terminate, frees the `PGconn`). Later calls fail with `connectionLost`.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                pq.finish()
                broken.store(true, ordering: .releasing)
                continuation.resume()
            }
        }
    }

    /// Closes the session on its queue without waiting.
    func closeInBackground() {
        queue.async { [self] in
            pq.finish()
            broken.store(true, ordering: .releasing)
        }
    }
}
