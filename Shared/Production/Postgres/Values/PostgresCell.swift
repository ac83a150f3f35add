/// One value of a result row in PostgreSQL's text format, with the column it came from.
public struct PostgresCell: Sendable {
    /// Column name as the server reported it.
    public let columnName: String
    /// Zero-based column position.
    public let columnIndex: Int
    /// The column's type.
    public let type: PostgresDataType
    /// The text-format bytes, or nil for SQL NULL.
    public let bytes: [UInt8]?

    public init(columnName: String, columnIndex: Int, type: PostgresDataType, bytes: [UInt8]?) {
        self.columnName = columnName
        self.columnIndex = columnIndex
        self.type = type
        self.bytes = bytes
    }

    /// True when the value is SQL NULL.
    public var isNull: Bool { bytes == nil }

    /// The bytes, or a `decode` error when the cell is NULL.
    public func requireBytes(as expected: String) throws -> [UInt8] {
        guard let bytes else { throw PostgresError.decode(column: columnName, expected: expected, actual: "NULL") }
        return bytes
    }

    /// The value as UTF-8 text, or a `decode` error when the cell is NULL.
    public func requireText(as expected: String) throws -> String {
        String(decoding: try requireBytes(as: expected), as: UTF8.self)
    }

    /// A `decode` error for this cell. The actual value is cut to 64 characters (it may be user data).
    public func decodeError(expected: String) -> PostgresError {
        guard let bytes else { return .decode(column: columnName, expected: expected, actual: "NULL") }
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        return .decode(column: columnName, expected: expected, actual: "\(type) \(text.debugDescription)")
    }
}
