import Foundation

// Date (timestamptz), Data and [UInt8] (bytea), UUID.

extension Date: PostgresValue, PostgresDecodable {
    /// Seconds between 1970-01-01 and PostgreSQL's epoch 2000-01-01 (UTC).
    static let postgresEpochOffset: Double = 946_684_800

    /// Binary timestamptz: microseconds since 2000-01-01 UTC (sub-microsecond parts are rounded).
    public var postgresBinding: PostgresBinding {
        let micros = ((timeIntervalSince1970 - Date.postgresEpochOffset) * 1_000_000).rounded()
        let clamped = Int64(exactly: micros) ?? (micros < 0 ? Int64.min : Int64.max)
        return PostgresBinding(type: .timestamptz, format: .binary, bytes: clamped.postgresBigEndianBytes)
    }

    /// Parses ISO text of `timestamptz`, `timestamp` (read as UTC) and `date` (midnight UTC);
    /// `infinity` and `-infinity` become `distantFuture` and `distantPast`.
    public init(postgresCell cell: PostgresCell) throws {
        let bytes = try cell.requireBytes(as: "Date")
        guard let micros = PostgresTimestampText.microsecondsSince1970(bytes) else {
            throw cell.decodeError(expected: "Date")
        }
        switch micros {
        case .max: self = .distantFuture
        case .min: self = .distantPast
        default: self = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        }
    }
}

extension Data: PostgresValue, PostgresDecodable {
    /// Binary bytea: the bytes as they are, zero bytes included.
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .bytea, format: .binary, bytes: Array(self))
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let bytes = PostgresByteaText.decode(try cell.requireBytes(as: "Data")) else {
            throw cell.decodeError(expected: "Data")
        }
        self = Data(bytes)
    }
}

extension Array: PostgresValue, PostgresDecodable where Element == UInt8 {
    /// Binary bytea.
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .bytea, format: .binary, bytes: self)
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let bytes = PostgresByteaText.decode(try cell.requireBytes(as: "[UInt8]")) else {
            throw cell.decodeError(expected: "[UInt8]")
        }
        self = bytes
    }
}

extension UUID: PostgresValue, PostgresDecodable {
    /// Binary uuid: the 16 bytes.
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .uuid, format: .binary, bytes: withUnsafeBytes(of: uuid) { Array($0) })
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let value = UUID(uuidString: try cell.requireText(as: "UUID")) else {
            throw cell.decodeError(expected: "UUID")
        }
        self = value
    }
}
