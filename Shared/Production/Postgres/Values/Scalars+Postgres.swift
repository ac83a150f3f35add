// String, Double and Bool.

extension String: PostgresValue, PostgresDecodable {
    /// Text format with an unspecified type, so the server infers `text`, `varchar`, `uuid`… from context.
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .unspecified, format: .text, bytes: Array(utf8))
    }

    /// Any column decodes as its text representation.
    public init(postgresCell cell: PostgresCell) throws {
        self = try cell.requireText(as: "String")
    }
}

extension Double: PostgresValue, PostgresDecodable {
    /// Binary float8: the exact IEEE 754 bits, no rounding through text.
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .float8, format: .binary, bytes: bitPattern.postgresBigEndianBytes)
    }

    /// Parses float4/float8/numeric/integer text, including `Infinity`, `-Infinity` and `NaN`.
    public init(postgresCell cell: PostgresCell) throws {
        guard let value = Double(try cell.requireText(as: "Double")) else { throw cell.decodeError(expected: "Double") }
        self = value
    }
}

extension Bool: PostgresValue, PostgresDecodable {
    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .bool, format: .binary, bytes: [self ? 1 : 0])
    }

    public init(postgresCell cell: PostgresCell) throws {
        switch try cell.requireText(as: "Bool") {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw cell.decodeError(expected: "Bool")
        }
    }
}
