import FastJSON
import Foundation

/// A message that travels on a topic: versioned by its `schema` field.
public protocol VersionedMessage: Codable, Sendable {
    /// The schema version this build writes (the newest it knows).
    static var currentSchema: Int { get }
    /// The schema versions this build reads (default: `currentSchema` only).
    static var acceptedSchemas: ClosedRange<Int> { get }
    /// The topic it travels on.
    static var topic: Topic { get }
    /// The version written in the message.
    var schema: Int { get }
    /// The largest encoding of this message that may be produced or is accepted (default
    /// `MessageCodec.maximumMessageBytes`; a `FixtureSnapshot` is held to far less).
    static var maximumBytes: Int { get }
}

extension VersionedMessage {
    public static var maximumBytes: Int { MessageCodec.maximumMessageBytes }
    public static var acceptedSchemas: ClosedRange<Int> { currentSchema...currentSchema }
}

/// Why a message could not be encoded for its topic.
public enum MessageEncodeError: Error, Equatable, CustomStringConvertible {
    /// The encoding is larger than the message type's bound: it is never produced.
    case tooLarge(topic: String, bytes: Int, limit: Int)
    /// The value has no JSON encoding (a NaN, say).
    case unencodable(topic: String, reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let topic, let bytes, let limit): "\(topic): a \(bytes)-byte message exceeds the \(limit)-byte bound"
        case .unencodable(let topic, let reason): "\(topic): not encodable: \(reason)"
        }
    }
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
    /// The default bound of a message (Kafka's default message.max.bytes is about 1 MB; deploy/topics.conf and
    /// the clients set their limits above it explicitly).
    public static let maximumMessageBytes = 1_000_000

    /// The message's JSON (sorted keys).
    /// - Throws: `MessageEncodeError.tooLarge` above `Message.maximumBytes`: such a message is never produced.
    public static func encode<Message: VersionedMessage>(_ message: Message) throws(MessageEncodeError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do { bytes = Array(try encoder.encode(message)) } catch {
            throw .unencodable(topic: Message.topic.name, reason: String(describing: error))
        }
        guard bytes.count <= Message.maximumBytes else {
            throw .tooLarge(topic: Message.topic.name, bytes: bytes.count, limit: Message.maximumBytes)
        }
        return bytes
    }

    /// Decodes a message of `type`, parsing its bytes once: the typed decode runs first and the schema is read
    /// from its result. Only a message that does not decode is parsed again: by Foundation, then, if that
    /// fails too, to say why — not JSON, not an object, another schema version, or which field is wrong
    /// (checked in that order).
    public static func decode<Message: VersionedMessage>(_ type: Message.Type, from bytes: [UInt8]) throws(MessageDecodeError)
        -> Message
    {
        let topic = Message.topic.name
        guard bytes.count <= Message.maximumBytes else {
            throw .tooLarge(topic: topic, bytes: bytes.count, limit: Message.maximumBytes)
        }
        // FastJSON (the tape decoder the detector uses) parses the message once; it is several times cheaper
        // than Foundation's JSONDecoder on the ≈240 kB push jobs apns-sender reads. A message it refuses goes
        // through JSONDecoder: accepted if Foundation reads it (no valid message is lost to a decoder
        // difference), otherwise Foundation's error names what is wrong (its text, kept stable).
        func current(_ message: Message) throws(MessageDecodeError) -> Message {
            guard Message.acceptedSchemas.contains(message.schema) else {
                throw .unsupportedSchema(topic: topic, found: message.schema, expected: Message.currentSchema)
            }
            return message
        }
        if let message = try? FastJSONDecoder().decode(Message.self, from: bytes) { return try current(message) }
        let data = Data(bytes)
        let message: Message
        do {
            message = try JSONDecoder().decode(Message.self, from: data)
        } catch {
            throw rejection(of: data, topic: topic, accepted: Message.acceptedSchemas, expected: Message.currentSchema, decodeError: error)
        }
        return try current(message)
    }

    /// Why `data` did not decode: the first of not JSON, not an object, another schema, a bad field.
    private static func rejection(of data: Data, topic: String, accepted: ClosedRange<Int>, expected: Int, decodeError: any Error)
        -> MessageDecodeError
    {
        let excerpt = String(decoding: data.prefix(80), as: UTF8.self)
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .malformedJSON(topic: topic, reason: "not parseable", excerpt: excerpt)
        }
        guard let members = object as? [String: Any] else {
            return .malformedJSON(topic: topic, reason: "not a JSON object", excerpt: excerpt)
        }
        let schema = (members["schema"] as? NSNumber)?.intValue
        guard let schema, accepted.contains(schema) else {
            return .unsupportedSchema(topic: topic, found: schema, expected: expected)
        }
        switch decodeError {
        case DecodingError.keyNotFound(let key, let context):
            return .invalidField(topic: topic, path: path(context.codingPath + [key]), reason: "missing")
        case DecodingError.typeMismatch(_, let context):
            return .invalidField(topic: topic, path: path(context.codingPath), reason: context.debugDescription)
        case DecodingError.valueNotFound(_, let context):
            return .invalidField(topic: topic, path: path(context.codingPath), reason: "null")
        case DecodingError.dataCorrupted(let context):
            return .invalidField(topic: topic, path: path(context.codingPath), reason: context.debugDescription)
        default:
            return .invalidField(topic: topic, path: "", reason: String(describing: decodeError))
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined().trimmingPrefix(".").description
    }
}
