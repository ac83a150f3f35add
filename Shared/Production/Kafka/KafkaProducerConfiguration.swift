/// Settings for a ``KafkaProducer``. The producer is always idempotent (`enable.idempotence=true`, `acks=all`).
public struct KafkaProducerConfiguration: Sendable {
    /// The brokers and how to reach them (security, pass-through properties).
    public var cluster: KafkaCluster
    /// Comma-separated `host:port` list, e.g. `127.0.0.1:19092`.
    public var bootstrapServers: String { cluster.bootstrapServers }
    /// Client id shown in broker logs and metrics.
    public var clientId: String
    /// How long librdkafka waits to batch messages (`linger.ms`).
    public var linger: Duration = .milliseconds(5)
    /// How long a message may wait for acknowledgement before its delivery fails (`message.timeout.ms`).
    public var messageTimeout: Duration = .seconds(30)
    /// The largest request the producer sends, and so the largest message (`message.max.bytes`): set
    /// explicitly, at or below the topics' `max.message.bytes` (deploy/topics.conf), above every message bound.
    public var messageMaxBytes: Int = 1_048_576
    /// How batches are compressed on the wire and on the broker (`compression.type`): lz4 by default (JSON
    /// compresses 4–8×, at little CPU; zstd compresses a little more at more CPU).
    public var compression: KafkaCompression = .lz4
    /// Raw librdkafka properties applied last; they override everything above.
    public var additional: [String: String] = [:]

    public init(cluster: KafkaCluster, clientId: String) {
        self.cluster = cluster
        self.clientId = clientId
    }

    public init(bootstrapServers: String, clientId: String) {
        self.init(cluster: KafkaCluster(bootstrapServers: bootstrapServers), clientId: clientId)
    }

    /// The librdkafka properties this configuration stands for.
    var librdkafkaProperties: [String: String] {
        var properties = cluster.librdkafkaProperties
        properties.merge([
            "client.id": clientId,
            "enable.idempotence": "true",
            "acks": "all",
            "linger.ms": String(linger.wholeMilliseconds),
            "message.timeout.ms": String(messageTimeout.wholeMilliseconds),
            "message.max.bytes": String(messageMaxBytes),
            "compression.type": compression.rawValue,
        ]) { _, new in new }
        properties.merge(additional) { _, new in new }
        return properties
    }
}

/// A producer's batch compression (librdkafka `compression.type`).
public enum KafkaCompression: String, Sendable, CaseIterable {
    case none, gzip, snappy, lz4, zstd
}
