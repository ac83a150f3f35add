// Integers are sent in binary (big-endian) and read from text.

extension FixedWidthInteger {
    /// Big-endian bytes, PostgreSQL's binary integer representation.
    var postgresBigEndianBytes: [UInt8] {
        withUnsafeBytes(of: self.bigEndian) { Array($0) }
    }

    /// Parses a decimal integer from text bytes with overflow checks; nil when not an integer.
    static func parsePostgresText(_ bytes: [UInt8]) -> Self? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value: Self = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(Self(digit)) : shifted.addingReportingOverflow(Self(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }
}

extension Int: PostgresValue, PostgresDecodable {
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .int8, format: .binary, bytes: Int64(self).postgresBigEndianBytes)
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let value = Int.parsePostgresText(try cell.requireBytes(as: "Int")) else {
            throw cell.decodeError(expected: "Int")
        }
        self = value
    }
}

extension Int64: PostgresValue, PostgresDecodable {
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .int8, format: .binary, bytes: postgresBigEndianBytes)
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let value = Int64.parsePostgresText(try cell.requireBytes(as: "Int64")) else {
            throw cell.decodeError(expected: "Int64")
        }
        self = value
    }
}

extension Int32: PostgresValue, PostgresDecodable {
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .int4, format: .binary, bytes: postgresBigEndianBytes)
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let value = Int32.parsePostgresText(try cell.requireBytes(as: "Int32")) else {
            throw cell.decodeError(expected: "Int32")
        }
        self = value
    }
}

extension Int16: PostgresValue, PostgresDecodable {
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .int2, format: .binary, bytes: postgresBigEndianBytes)
    }

    public init(postgresCell cell: PostgresCell) throws {
        guard let value = Int16.parsePostgresText(try cell.requireBytes(as: "Int16")) else {
            throw cell.decodeError(expected: "Int16")
        }
        self = value
    }
}
