/// Everything that can go wrong talking to PostgreSQL.
///
/// No case ever carries a query parameter value (parameters may hold user data). `description` is
/// safe for logs: it omits the server's DETAIL and the actual value of a failed decode, which
/// may quote user data; `debugDescription` includes them.
public enum PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A new connection could not be opened (server down, refused, bad credentials, timeout).
    case connectionFailed(host: String, port: Int, message: String)
    /// An open connection broke. `querySent` is false when nothing reached the server
    /// (then the statement certainly did not run and a retry is safe).
    case connectionLost(message: String, querySent: Bool)
    /// The server rejected the statement (SQLSTATE, message, detail…).
    case queryFailed(PostgresServerError)
    /// A result cell could not be read as the requested Swift type.
    case decode(column: String, expected: String, actual: String)
    /// A column name or index that the result does not have.
    case noSuchColumn(String)
    /// A parameter that cannot be sent (for example a text value containing a NUL byte).
    case invalidParameter(index: Int, reason: String)
    /// A configuration value that cannot be used.
    case invalidConfiguration(String)
    /// A migration list that cannot be applied (duplicate or non-positive versions).
    case invalidMigration(version: Int, reason: String)
    /// No pooled connection became free within the acquire timeout.
    case poolTimeout(after: Duration)
    /// The server did not answer a statement within the query timeout; the connection was closed.
    /// The statement may still run once the server answers again (a write may commit), so treat it
    /// as failed-maybe-applied: retry only idempotent work.
    case queryTimedOut(after: Duration)
    /// The client was shut down.
    case poolClosed
    /// libpq reported something this wrapper does not expect.
    case unexpected(String)

    /// The SQLSTATE of a server error, e.g. `23505`.
    public var sqlState: String? {
        if case .queryFailed(let error) = self { return error.sqlState }
        return nil
    }

    /// True for failures of the connection itself rather than of the statement.
    public var isConnectionFailure: Bool {
        switch self {
        case .connectionFailed, .connectionLost: true
        default: false
        }
    }

    /// True when the database cannot be reached or does not answer right now (connection failed or
    /// lost, no free connection, no answer in time): an api answers 503 for these, not 500.
    public var isUnavailable: Bool {
        switch self {
        case .connectionFailed, .connectionLost, .poolTimeout, .queryTimedOut: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .connectionFailed(let host, let port, let message):
            "postgres: connection to \(host):\(port) failed: \(message)"
        case .connectionLost(let message, let querySent):
            "postgres: connection lost (\(querySent ? "after" : "before") sending the statement): \(message)"
        case .queryFailed(let error):
            "postgres: \(error.description)"
        case .decode(let column, let expected, _):
            "postgres: column \(column.debugDescription) cannot be decoded as \(expected)"
        case .noSuchColumn(let column):
            "postgres: the result has no column \(column)"
        case .invalidParameter(let index, let reason):
            "postgres: parameter $\(index + 1) cannot be sent: \(reason)"
        case .invalidConfiguration(let reason):
            "postgres: invalid configuration: \(reason)"
        case .invalidMigration(let version, let reason):
            "postgres: invalid migration \(version): \(reason)"
        case .poolTimeout(let after):
            "postgres: no connection became free within \(after)"
        case .queryTimedOut(let after):
            "postgres: no answer from the server within \(after); the connection was closed (the statement may still run)"
        case .poolClosed:
            "postgres: the client is shut down"
        case .unexpected(let message):
            "postgres: unexpected libpq state: \(message)"
        }
    }

    public var debugDescription: String {
        switch self {
        case .queryFailed(let error): "postgres: \(error.debugDescription)"
        case .decode(let column, let expected, let actual):
            "postgres: column \(column.debugDescription) cannot be decoded as \(expected) (actual: \(actual))"
        default: description
        }
    }
}

/// The fields of a server ErrorResponse.
public struct PostgresServerError: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// SQLSTATE code, e.g. `23505` (unique_violation); see `PostgresSQLState`.
    public var sqlState: String
    /// ERROR, FATAL, PANIC (not localised).
    public var severity: String
    /// Primary message.
    public var message: String
    /// DETAIL; may quote row values, so it only appears in `debugDescription`.
    public var detail: String?
    public var hint: String?
    public var schema: String?
    public var table: String?
    public var column: String?
    public var constraint: String?

    public init(
        sqlState: String, severity: String, message: String, detail: String? = nil, hint: String? = nil,
        schema: String? = nil, table: String? = nil, column: String? = nil, constraint: String? = nil
    ) {
        self.sqlState = sqlState
        self.severity = severity
        self.message = message
        self.detail = detail
        self.hint = hint
        self.schema = schema
        self.table = table
        self.column = column
        self.constraint = constraint
    }

    public var description: String {
        var text = "\(severity) \(sqlState): \(message)"
        if let constraint { text += " (constraint \(constraint))" }
        return text
    }

    public var debugDescription: String {
        var text = description
        if let detail { text += " DETAIL: \(detail)" }
        if let hint { text += " HINT: \(hint)" }
        return text
    }
}

/// SQLSTATE codes callers commonly branch on.
public enum PostgresSQLState {
    public static let uniqueViolation = "23505"
    public static let foreignKeyViolation = "23503"
    public static let checkViolation = "23514"
    public static let notNullViolation = "23502"
    public static let serializationFailure = "40001"
    public static let deadlockDetected = "40P01"
    public static let queryCanceled = "57014"
    public static let adminShutdown = "57P01"
    public static let undefinedTable = "42P01"
    public static let syntaxError = "42601"
}
