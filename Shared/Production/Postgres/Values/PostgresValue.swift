/// One encoded query parameter: its type OID, wire format and bytes.
///
/// Values always travel separately from the SQL text (`$1`, `$2`, …); they are never
/// interpolated into a statement.
public struct PostgresBinding: Sendable, Hashable {
    /// The type the server should read the parameter as (`.unspecified` lets it infer).
    public var type: PostgresDataType
    /// Text or binary representation.
    public var format: PostgresFormat
    /// The encoded value. Text-format values must not contain NUL bytes.
    public var bytes: [UInt8]

    public init(type: PostgresDataType, format: PostgresFormat, bytes: [UInt8]) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }
}

/// A Swift value that can be bound as a query parameter.
///
/// Conforming types: `String`, `Int`, `Int64`, `Int32`, `Int16`, `Double`, `Bool`, `Date` (timestamptz),
/// `Data` and `[UInt8]` (bytea, sent in binary), `UUID`, `PostgresJSON` (jsonb). SQL NULL is
/// `nil` in a `[PostgresValue?]` parameter list.
public protocol PostgresValue: Sendable {
    /// The encoded parameter.
    var postgresBinding: PostgresBinding { get }
}

/// A Swift value that can be read from a result cell.
///
/// Results are requested in PostgreSQL's text format (with DateStyle ISO, TimeZone UTC and
/// bytea_output hex fixed per connection), so decoders parse text. `Optional<T>` decodes SQL NULL
/// as `nil`; every non-optional type throws `PostgresError.decode` for NULL.
public protocol PostgresDecodable: Sendable {
    /// Decodes the value of `cell`.
    /// - Throws: `PostgresError.decode` naming the column, the expected type and the actual value.
    init(postgresCell cell: PostgresCell) throws
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        if cell.isNull {
            self = .none
        } else {
            self = .some(try Wrapped(postgresCell: cell))
        }
    }
}
