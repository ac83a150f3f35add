import CLibPQ
import Runtime
#if canImport(Glibc)
import Glibc
#endif

/// Owns one `PGconn`: `PQfinish` runs in `deinit`, also when the connection attempt failed.
///
/// Every method blocks and must only be called on the owning `PostgresConnection`'s serial
/// queue. `@unchecked Sendable` because the instance moves between that queue and the task
/// that created it, but is never used by two threads at once (the queue serialises all use).
final class PQConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    /// Receives notices; outlives `handle` (PQfinish runs in deinit, before properties are released).
    private let noticeSink: PQNoticeSink
    /// Prepared statement names by SQL text and parameter types. Empty on a new connection, so
    /// statements are prepared again after a reconnect.
    private var statements: [StatementKey: String] = [:]
    private var nextStatementNumber = 0
    static let statementCacheLimit = 256

    private struct StatementKey: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private init(handle: OpaquePointer?, noticeSink: PQNoticeSink) {
        self.handle = handle
        self.noticeSink = noticeSink
        if let handle { noticeSink.install(on: handle) }
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Opens a connection (blocking, bounded by `connect_timeout`).
    /// - Throws: `connectionFailed` with libpq's message; the half-open `PGconn` is freed.
    static func connect(_ configuration: PostgresConfiguration, logger: Logger) throws -> PQConnection {
        let connection = PQConnection(
            handle: PQParameters.withKeywordValues(configuration.connectionParameters) { keywords, values in
                PQconnectdbParams(keywords, values, 0)
            }, noticeSink: PQNoticeSink(logger: logger))
        guard let handle = connection.handle else {
            throw PostgresError.connectionFailed(
                host: configuration.host, port: configuration.port, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            // `connection` is released when this throws, and its deinit calls PQfinish.
            throw PostgresError.connectionFailed(
                host: configuration.host, port: configuration.port, message: connection.errorMessage)
        }
        return connection
    }

    /// Closes the connection now (idempotent).
    func finish() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    var errorMessage: String {
        guard let handle, let message = PQerrorMessage(handle) else { return "connection closed" }
        return String(cString: message).trimmingCharacters()
    }

    var isOK: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True while a transaction block is open (including a failed one).
    var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    var backendProcessID: Int32 {
        handle.map { PQbackendPID($0) } ?? 0
    }

    /// A cancel handle for this connection's backend.
    func makeCancel() -> PQCancel {
        PQCancel(taking: handle.map { PQgetCancel($0) } ?? nil)
    }

    /// Checks, without a round trip, that the server has not closed an idle connection.
    ///
    /// While the socket is readable, input is consumed. A server that ended the session (restart,
    /// `pg_terminate_backend`) first sends a FATAL ErrorResponse (which libpq passes to the notice
    /// receiver) and then closes the socket; reading that end-of-file turns the status into
    /// CONNECTION_BAD. Bounded to a few reads: an idle session has nothing else to receive.
    func checkAlive() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        for _ in 0..<8 {
            let socket = PQsocket(handle)
            guard socket >= 0 else { return false }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { return false }
            while let notification = PQnotifies(handle) { PQfreemem(notification) }
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    // MARK: - Statements

    /// Runs one parameterised statement (extended protocol) and returns its result.
    ///
    /// With `prepared`, the statement is prepared once per connection (keyed by SQL text and
    /// parameter types) and executed with `PQsendQueryPrepared`.
    /// - Throws: `queryFailed`, `connectionLost(querySent:)`, `invalidParameter`.
    /// - Parameter timeout: how long to wait for the server's answer (nil: as long as it takes). When it
    ///   passes, the connection is abandoned (closed; `isOK` false) and `queryTimedOut` is thrown.
    func execute(_ sql: String, _ bindings: [PostgresBinding?], prepared: Bool, timeout: Duration?) throws -> PQResult {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.connectionLost(message: errorMessage, querySent: false)
        }
        let types = bindings.map { $0?.type.rawValue ?? 0 }
        var statementName: String?
        if prepared {
            let key = StatementKey(sql: sql, types: types)
            if let name = statements[key] {
                statementName = name
            } else if statements.count < Self.statementCacheLimit {
                nextStatementNumber += 1
                let name = "sightscreen_s\(nextStatementNumber)"
                let sent = types.withUnsafeBufferPointer {
                    PQsendPrepare(handle, name, sql, Int32(types.count), $0.baseAddress)
                }
                try checkSent(sent)
                _ = try collectResults(deadline: deadline, timeout: timeout)
                statements[key] = name
                statementName = name
            }
        }
        let sent = try PQParameters.with(bindings) { count, types, values, lengths, formats in
            if let statementName {
                PQsendQueryPrepared(handle, statementName, count, values, lengths, formats, 0)
            } else {
                PQsendQueryParams(handle, sql, count, types, values, lengths, formats, 0)
            }
        }
        try checkSent(sent)
        return try collectResults(deadline: deadline, timeout: timeout)
    }

    /// Runs a script of several statements with the simple query protocol. No parameters: only
    /// for trusted, constant SQL such as migrations.
    func executeScript(_ sql: String) throws -> PQResult {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.connectionLost(message: errorMessage, querySent: false)
        }
        try checkSent(PQsendQuery(handle, sql))
        return try collectResults(deadline: nil, timeout: nil)
    }

    /// Reads input until libpq holds the statement's complete answer (`PQisBusy` false, so
    /// `PQgetResult` will not block), waiting on the socket with `poll` no later than `deadline`.
    /// False when the deadline passed first. A broken socket returns true: `PQgetResult` reports it.
    private func waitForResult(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) -> Bool {
        while PQisBusy(handle) != 0 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let socket = PQsocket(handle)
            guard socket >= 0 else { return true }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = max(1, remaining.timeoutMilliseconds)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 { if errno == EINTR { continue } else { return true } }
            guard ready > 0 else { continue }
            if PQconsumeInput(handle) == 0 { return true }
        }
        return true
    }

    /// Turns a failed `PQsend*` into an error. Nothing reached the server, so the statement did not run.
    private func checkSent(_ result: Int32) throws {
        guard result == 0 else { return }
        if isOK { throw PostgresError.unexpected(errorMessage) }
        throw PostgresError.connectionLost(message: errorMessage, querySent: false)
    }

    /// Reads every result of the statement just sent (bounded by what the server sends; the
    /// loop ends when libpq returns NULL). Returns the last result, or throws the first error.
    private func collectResults(deadline: ContinuousClock.Instant?, timeout: Duration?) throws -> PQResult {
        guard let handle else { throw PostgresError.connectionLost(message: "connection closed", querySent: true) }
        var last: PQResult?
        var firstError: PQResult?
        while true {
            if let deadline, let timeout, !waitForResult(handle, until: deadline) {
                // The server did not answer in time (stopped, overloaded, network gone). What the
                // connection would read next is unknown: close it, so the pool opens a fresh one.
                finish()
                throw PostgresError.queryTimedOut(after: timeout)
            }
            guard let raw = PQgetResult(handle) else { break }
            let result = PQResult(taking: raw)
            if result.isSuccess {
                last = result
            } else if firstError == nil {
                firstError = result
            }
            if PQstatus(handle) != CONNECTION_OK { break }
        }
        if PQstatus(handle) != CONNECTION_OK {
            let message = firstError.map { $0.serverError.message } ?? errorMessage
            throw PostgresError.connectionLost(message: message, querySent: true)
        }
        if let firstError {
            guard firstError.hasServerError else { throw PostgresError.unexpected(firstError.serverError.message) }
            throw PostgresError.queryFailed(firstError.serverError)
        }
        guard let last else { throw PostgresError.unexpected("no result for the statement") }
        return last
    }
}
