import Foundation
import Runtime

/// How to reach PostgreSQL and how big the pool is.
///
/// Translated to libpq in exactly one place (`connectionParameters`), as keyword/value arrays
/// for `PQconnectdbParams`, never as an interpolated conninfo string.
public struct PostgresConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// Shown in `pg_stat_activity.application_name`.
    public var applicationName: String = "sightscreen"
    /// libpq `connect_timeout` (whole seconds; libpq treats values below 2 s as 2 s).
    public var connectTimeout: Duration = .seconds(5)
    /// Most connections the pool opens at once.
    public var maxConnections: Int = 10
    /// How long `PostgresClient` waits for a free connection before `poolTimeout`.
    public var acquireTimeout: Duration = .seconds(30)
    /// Client-side limit on waiting for the server's answer to one statement (nil: none). A stopped
    /// or unreachable server leaves a connection open and silent, and neither `statement_timeout`
    /// nor TCP notices that; this does. On expiry the statement fails with `queryTimedOut` and the
    /// connection is closed. Migrations wait without it. URL key `query_timeout_ms`
    /// (e.g. `DATABASE_URL=postgresql://…/sightscreen?query_timeout_ms=5000`).
    public var queryTimeout: Duration? = .seconds(10)
    /// Server-side `statement_timeout` for every statement, if set.
    public var statementTimeout: Duration?
    /// Server-side `search_path` (schema names), if set.
    public var searchPath: [String]?
    /// Further server settings sent as `-c name=value` in the startup `options`.
    public var serverSettings: [String: String] = [:]
    /// Further libpq connection keywords (e.g. `sslmode`), passed through as given.
    public var additionalParameters: [String: String] = [:]

    public init(host: String = "127.0.0.1", port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// The local default: `postgresql://sightscreen@127.0.0.1:55432/sightscreen`.
    public static let localDefaultURL = "postgresql://sightscreen@127.0.0.1:55432/sightscreen"

    /// Parses a `postgresql://user[:password]@host[:port]/database[?key=value&…]` URL (`postgres://` too).
    ///
    /// Query keys: `application_name`, `connect_timeout` (seconds), `query_timeout_ms` (0: none),
    /// `pool_size`, `host` (e.g. a socket folder); any other key is passed to libpq as a connection keyword (`sslmode=require`).
    /// - Throws: `PostgresError.invalidConfiguration` naming what is wrong (never the password).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgresql" || scheme == "postgres"
        else {
            throw PostgresError.invalidConfiguration("expected a postgresql://user@host:port/database URL")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresError.invalidConfiguration("the URL has no user name")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        self.init(
            host: components.host.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) } ?? "127.0.0.1",
            port: components.port ?? 5432, user: user, password: components.password,
            database: database.isEmpty ? user : database)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "application_name": applicationName = value
            case "host": host = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw PostgresError.invalidConfiguration("connect_timeout must be a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            case "query_timeout_ms":
                guard let milliseconds = Int64(value), milliseconds >= 0 else {
                    throw PostgresError.invalidConfiguration("query_timeout_ms must be a non-negative number of milliseconds")
                }
                queryTimeout = milliseconds == 0 ? nil : .milliseconds(milliseconds)
            case "pool_size":
                guard let size = Int(value), size > 0 else {
                    throw PostgresError.invalidConfiguration("pool_size must be a positive integer")
                }
                maxConnections = size
            default: additionalParameters[item.name] = value
            }
        }
    }

    /// Reads `DATABASE_URL` (default: the local stack) and `DATABASE_POOL_SIZE`.
    /// - Throws: `ConfigurationError` or `PostgresError.invalidConfiguration`.
    public static func fromEnvironment(_ environment: EnvironmentReader = EnvironmentReader()) throws
        -> PostgresConfiguration
    {
        var configuration = try PostgresConfiguration(
            url: environment.string("DATABASE_URL", default: localDefaultURL))
        configuration.maxConnections = try environment.int(
            "DATABASE_POOL_SIZE", default: configuration.maxConnections, in: 1...1000)
        return configuration
    }

    /// Settings every connection needs so that text results parse the same way everywhere.
    private var fixedSettings: [(String, String)] {
        var settings = [
            ("DateStyle", "ISO"), ("TimeZone", "UTC"), ("bytea_output", "hex"), ("extra_float_digits", "3"),
        ]
        if let statementTimeout {
            settings.append(("statement_timeout", String(statementTimeout.wholeMilliseconds)))
        }
        if let searchPath { settings.append(("search_path", searchPath.joined(separator: ","))) }
        for key in serverSettings.keys.sorted() { settings.append((key, serverSettings[key]!)) }
        return settings
    }

    /// libpq keyword/value pairs for `PQconnectdbParams`.
    var connectionParameters: [(keyword: String, value: String)] {
        var parameters: [(keyword: String, value: String)] = [
            ("host", host), ("port", String(port)), ("user", user), ("dbname", database),
            ("application_name", applicationName), ("client_encoding", "UTF8"),
            ("connect_timeout", String(max(2, connectTimeout.components.seconds))),
            ("options", fixedSettings.map { "-c \(Self.escapeOption($0.0))=\(Self.escapeOption($0.1))" }.joined(separator: " ")),
        ]
        if let password { parameters.append(("password", password)) }
        for key in additionalParameters.keys.sorted() { parameters.append((key, additionalParameters[key]!)) }
        return parameters
    }

    /// Escapes spaces and backslashes as libpq's `options` keyword requires.
    static func escapeOption(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == " " || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
