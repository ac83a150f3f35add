import Foundation

/// A message that travels on a topic: versioned by its `schema` field.
public protocol VersionedMessage: Codable, Sendable {
    /// The schema version this build writes and reads.
    static var currentSchema: Int { get }
    /// The topic it travels on.
    static var topic: Topic { get }
    /// The version written in the message.
    var schema: Int { get }
}

/// Why a message taken off a topic was rejected. Carries a short excerpt of the input, never all of it.
public enum MessageDecodeError: Error, Equatable, CustomStringConvertible {
    /// The bytes are not JSON (or not UTF-8), or not an object.
    case malformedJSON(topic: String, reason: String, excerpt: String)
    /// The JSON is a message of another schema version.
    case unsupportedSchema(topic: String, found: Int?, expected: Int)
    /// A field is missing or has the wrong type or value.
    case invalidField(topic: String, path: String, reason: String)
    /// The message is bigger than the topic allows.
    case tooLarge(topic: String, bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .malformedJSON(let topic, let reason, let excerpt): "\(topic): malformed JSON (\(reason)) in \(excerpt.debugDescription)"
        case .unsupportedSchema(let topic, let found, let expected): "\(topic): schema \(found.map(String.init) ?? "missing"), expected \(expected)"
        case .invalidField(let topic, let path, let reason): "\(topic): field \(path): \(reason)"
        case .tooLarge(let topic, let bytes, let limit): "\(topic): \(bytes) bytes exceeds the \(limit)-byte limit"
        }
    }

    /// A metric label for the kind of failure.
    public var kind: String {
        switch self {
        case .malformedJSON: "malformed_json"
        case .unsupportedSchema: "unsupported_schema"
        case .invalidField: "invalid_field"
        case .tooLarge: "too_large"
        }
    }
}

/// Encodes and decodes topic messages as JSON; the only place message bytes are made or read.
public enum MessageCodec {
    /// The largest message any consumer accepts (Kafka's default message.max.bytes is about 1 MB).
    public static let maximumMessageBytes = 1_000_000

    public static func encode<Message: VersionedMessage>(_ message: Message) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(message))
    }

    public static func decode<Message: VersionedMessage>(_ type: Message.Type, from bytes: [UInt8]) throws(MessageDecodeError)
        -> Message
    {
        let topic = Message.topic.name
        guard bytes.count <= maximumMessageBytes else {
            throw .tooLarge(topic: topic, bytes: bytes.count, limit: maximumMessageBytes)
        }
        let data = Data(bytes)
        let excerpt = String(decoding: bytes.prefix(80), as: UTF8.self)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON(topic: topic, reason: "not parseable", excerpt: excerpt)
        }
        guard let members = object as? [String: Any] else {
            throw .malformedJSON(topic: topic, reason: "not a JSON object", excerpt: excerpt)
        }
        let schema = (members["schema"] as? NSNumber)?.intValue
        guard schema == Message.currentSchema else {
            throw .unsupportedSchema(topic: topic, found: schema, expected: Message.currentSchema)
        }
        do {
            return try JSONDecoder().decode(Message.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidField(topic: topic, path: path(context.codingPath + [key]), reason: "missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .invalidField(topic: topic, path: path(context.codingPath), reason: context.debugDescription)
        } catch let DecodingError.valueNotFound(_, context) {
            throw .invalidField(topic: topic, path: path(context.codingPath), reason: "null")
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidField(topic: topic, path: path(context.codingPath), reason: context.debugDescription)
        } catch {
            throw .invalidField(topic: topic, path: "", reason: String(describing: error))
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined().trimmingPrefix(".").description
    }
}
