import Foundation

/// A JSON document bound as `jsonb` (sent as text) and read from `json`/`jsonb` columns.
public struct PostgresJSON: PostgresValue, PostgresDecodable, Hashable, CustomStringConvertible {
    /// The JSON text.
    public let text: String

    /// Wraps JSON text as is; the server validates it.
    public init(_ text: String) {
        self.text = text
    }

    /// Encodes `value` with `encoder`.
    /// - Throws: the encoder's error.
    public init<T: Encodable>(encoding value: T, encoder: JSONEncoder = JSONEncoder()) throws {
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the document as `type`.
    /// - Throws: the decoder's error.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }

    public var postgresBinding: PostgresBinding {
        PostgresBinding(type: .jsonb, format: .text, bytes: Array(text.utf8))
    }

    public init(postgresCell cell: PostgresCell) throws {
        self.text = try cell.requireText(as: "PostgresJSON")
    }

    public var description: String { text }
}
