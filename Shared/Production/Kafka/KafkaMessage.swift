import Foundation

/// A consumed message, copied out of librdkafka (safe to keep after the next poll).
public struct KafkaMessage: Sendable, Hashable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64
    /// Key bytes; nil when the message has no key.
    public let key: [UInt8]?
    /// Value bytes; empty for a null value.
    public let value: [UInt8]
    public let headers: [KafkaHeader]
    /// Producer or log-append time, when the broker sent one.
    public let timestamp: Date?

    public init(topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader], timestamp: Date?) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// `timestamp` in Unix milliseconds as the broker sent it; -1 when it sent none.
    public var timestampMilliseconds: Int64 {
        timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? -1
    }

    /// The key decoded as UTF-8, if present and valid.
    public var keyString: String? { key.flatMap { String(validating: $0, as: UTF8.self) } }
    /// The value as `Data` (e.g. for `JSONDecoder`).
    public var valueData: Data { Data(value) }
    /// The partition this message came from.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }
    /// The first header with `key`, decoded as UTF-8.
    public func header(_ key: String) -> String? {
        headers.first { $0.key == key }?.value.flatMap { String(validating: $0, as: UTF8.self) }
    }
}
