import Foundation

/// A message a consumer could not decode, parked on `pipeline.dead-letter` instead of stopping the
/// consumer. It says where the message was and why it was refused, and carries at most the first
/// `maximumExcerptBytes` of its body (base64), never all of it. Key: "sourceTopic:partition:offset".
public struct DeadLetterRecord: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.deadLetter
    /// The most of the original body a record carries.
    public static let maximumExcerptBytes = 4096
    /// The most of the original key and of the error text a record carries.
    public static let maximumTextLength = 1000

    public var schema: Int
    /// The topic the message was taken from.
    public var sourceTopic: String
    public var partition: Int32
    public var offset: Int64
    /// The message key (lossy UTF-8, truncated), nil when the message had none.
    public var key: String?
    /// Why it was refused: `MessageDecodeError.kind` (malformed_json, unsupported_schema, invalid_field, too_large).
    public var kind: String
    /// The decode error's description (truncated).
    public var error: String
    /// The size of the original body in bytes.
    public var payloadBytes: Int
    /// Base64 of the first ≤ `maximumExcerptBytes` bytes of the body.
    public var payloadExcerpt: String
    /// Unix epoch milliseconds when the consumer refused it.
    public var receivedAt: Int64

    /// Builds a record from a refused message's coordinates and body (the body is cut to the excerpt here).
    public init(
        sourceTopic: String, partition: Int32, offset: Int64, key: [UInt8]?, kind: String, error: String, payload: [UInt8],
        receivedAt: Int64
    ) {
        self.schema = Self.currentSchema
        self.sourceTopic = sourceTopic
        self.partition = partition
        self.offset = offset
        self.key = key.map { String(String(decoding: $0.prefix(Self.maximumTextLength), as: UTF8.self)) }
        self.kind = kind
        self.error = String(error.prefix(Self.maximumTextLength))
        self.payloadBytes = payload.count
        self.payloadExcerpt = Data(payload.prefix(Self.maximumExcerptBytes)).base64EncodedString()
        self.receivedAt = receivedAt
    }

    /// The record's Kafka key: where the refused message was.
    public var recordKey: String { "\(sourceTopic):\(partition):\(offset)" }

    /// The excerpt's bytes.
    public var excerptBytes: [UInt8] { Data(base64Encoded: payloadExcerpt).map { Array($0) } ?? [] }
}
